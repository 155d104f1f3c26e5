import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('inbox [action] [file]')
    .description('what could not be judged yet (no LLM, or it failed): list it, or "dismiss FILE" once written by other means; retain --drain retries it')
    .action(
      cli.action(async (action: string | undefined, file: string | undefined) => {
        const api = await import('../api/corpus.js');
        const { inboxDismissText, inboxText } = await import('../text/notes.js');
        const root = cli.root();
        if (action === undefined) {
          const r = api.inbox(root);
          return { json: { ...r }, text: inboxText(r) };
        }
        if (action !== 'dismiss') throw new ZkError('usage', `unknown inbox action: ${JSON.stringify(action)} (use "inbox" or "inbox dismiss FILE")`);
        if (!file) throw new ZkError('usage', 'inbox dismiss needs the FILE that inbox lists');
        const r = api.inboxDismiss(root, file);
        return { json: { ...r }, text: inboxDismissText(r) };
      }),
    );
}
