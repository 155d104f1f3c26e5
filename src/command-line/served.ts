// Which command lines the corpus's resident server answers (docs/server.md): both the client that
// forwards a call (src/server/forward.ts) and the command line that says whether the server
// answered (`server` in `--json`, src/cli.ts) ask the same question here.

/** The commands that write to the corpus a server answers: the client must know whether the write happened. */
const WRITES = new Set(['write', 'merge', 'supersede', 'archive', 'integrate', 'retain', 'ingest accept']);

/**
 * The command a server answers, for a command line without its global options (`extractGlobals`
 * in src/command-line/globals.ts): those that only read (`tend check` of tend's subcommands), the
 * writes (`ingest accept` of ingest's), the hook, and `mcp`.
 */
export function servedCommand(rest: string[]): string | undefined {
  const [first, ...more] = rest;
  if (first === 'search' || first === 'context' || first === 'hook' || first === 'read' || first === 'list' || first === 'status' || first === 'mcp')
    return first;
  if (first === 'write' || first === 'merge' || first === 'supersede' || first === 'archive' || first === 'integrate' || first === 'retain') return first;
  const sub = more.find((w) => !w.startsWith('-'));
  if (first === 'tend' && sub === 'check') return 'tend check';
  if (first === 'ingest' && sub === 'accept') return 'ingest accept';
  return undefined;
}

/** Whether a served command writes (`servedCommand`'s answer): once sent, it is never run a second time. */
export function servedWrite(command: string | undefined): boolean {
  return command !== undefined && WRITES.has(command);
}
