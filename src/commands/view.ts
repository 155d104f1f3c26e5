import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';
import { current } from '../context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('view')
    .description("look at the memory in a browser: prints a one-time link to the viewer of the corpus's resident server (docs/viewer.md)")
    .option('--no-open', 'print the link only; never open a browser')
    .action(
      cli.action(async (flags: { open?: boolean }) => {
        const { viewerLaunch, openInBrowser } = await import('../server/view.js');
        const { settings } = current();
        const url = await viewerLaunch(cli.root(), settings);
        const opened = flags.open !== false && openInBrowser(url, settings.environment());
        return { json: { url, opened }, text: url };
      }),
    );
}
