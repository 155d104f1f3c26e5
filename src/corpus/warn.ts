import { current } from '../context.js';

/** What each call has warned of: a call that looks at a note twice says so once. */
const said = new WeakMap<object, Set<string>>();

/**
 * Warnings go to stderr, one line each, never to stdout (which may carry JSON or the MCP protocol),
 * and each at most once per call (one command line, one MCP tool call).
 */
export function warn(message: string): void {
  const context = current();
  let seen = said.get(context);
  if (!seen) said.set(context, (seen = new Set()));
  if (seen.has(message)) return;
  seen.add(message);
  context.io.stderr(`warning: ${message}\n`);
}
