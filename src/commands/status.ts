import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';
import { current } from '../context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('status')
    .description('corpus figures: notes by kind, superseded, archived, inbox, index freshness, lock and lease holders, last gardener pass')
    .action(
      cli.action(async () => {
        const { status } = await import('../api/search.js');
        const { statusText } = await import('../text/search.js');
        const { serverStatus } = await import('../server/status.js');
        const { serverText } = await import('../text/server.js');
        const root = cli.root();
        const [s, server] = await Promise.all([status(root), serverStatus(root, current().settings)]);
        return { json: { ...s, server }, text: `${statusText(s)}\n${serverText(server)}` };
      }),
    );
}
