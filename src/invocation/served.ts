// Which command lines the corpus's resident server answers (docs/server.md): both the client that
// forwards a call (src/server/forward.ts) and the command line that says whether the server
// answered (`server` in `--json`, src/cli.ts) ask the same question here.

/**
 * The command a server answers, for a command line without its global options (`extractGlobals`
 * in src/invocation/globals.ts): those that only read (`tend check` of tend's subcommands), and `mcp`.
 */
export function servedCommand(rest: string[]): string | undefined {
  const [first, ...more] = rest;
  if (first === 'search' || first === 'context' || first === 'hook' || first === 'read' || first === 'list' || first === 'status' || first === 'mcp') return first;
  if (first === 'tend' && more.find((w) => !w.startsWith('-')) === 'check') return 'tend check';
  return undefined;
}
