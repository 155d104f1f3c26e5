import { current } from '../context.js';

/** Warnings go to stderr, one line each, never to stdout (which may carry JSON or the MCP protocol). */
export function warn(message: string): void {
  current().io.stderr(`warning: ${message}\n`);
}
