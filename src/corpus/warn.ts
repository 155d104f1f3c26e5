import { callMemo, current } from '../context.js';

/**
 * Warnings go to stderr, one line each, never to stdout (which may carry JSON or the MCP protocol),
 * and each at most once per call (one command line, one MCP tool call).
 */
export function warn(message: string): void {
  const said = callMemo().get('warned', () => new Set<string>());
  if (said.has(message)) return;
  said.add(message);
  current().io.stderr(`warning: ${message}\n`);
}
