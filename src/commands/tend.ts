import type { Command } from 'commander';
import { EXIT } from '../errors.js';
import { COMMIT_HELP, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('tend <action>')
    .description('link integrity: check | mint | repair | robustify (mint, repair and robustify change files only with --write)')
    .option('--write', 'mint, repair, robustify: change the files (default: dry run, report only)')
    .option('--strict', 'check: unanchored links fail too')
    .option('--commit', COMMIT_HELP)
    .action(
      cli.action(async (action: string, flags: { write?: boolean; strict?: boolean }) => {
        const { tend, tendFailed } = await import('../api/tend.js');
        const { tendText } = await import('../text/tend.js');
        const r = await tend(cli.root(), action, flags);
        const { strict, ...json } = r;
        return { json, text: tendText(r), exitCode: tendFailed(r) ? EXIT.refused : EXIT.ok };
      }),
    );
}
