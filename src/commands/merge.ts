import type { Command } from 'commander';
import { COMMIT_HELP, textArg, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('merge <ref> [fragment]')
    .description('append a dated fragment to a note (append-only); fragment from the argument or stdin ("-")')
    .option('--source <name>', 'who adds it (default: ZK_MEMORY_SOURCE)')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(async (ref: string, fragment: string | undefined, flags: { source?: string }) => {
        const { merge } = await import('../api/notes.js');
        const { mergeText } = await import('../text/notes.js');
        const r = await merge(cli.root(), ref, textArg(fragment) ?? '', { source: flags.source });
        return { json: { ...r }, text: mergeText(r) };
      }),
    );
}
