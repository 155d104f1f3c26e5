import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('corpus <action> [name] [dir]')
    .description('corpora by name, for --corpus NAME and serve --http (/mcp/NAME): add NAME DIR | list | remove NAME')
    .action(
      cli.action(async (action: string, name: string | undefined, dir: string | undefined) => {
        const api = await import('../api/corpora.js');
        if (action === 'list') {
          const corpora = api.listCorpora();
          const { corporaText } = await import('../text/corpora.js');
          return { json: { corpora }, text: corporaText(corpora) };
        }
        if (action !== 'add' && action !== 'remove')
          throw new ZkError('usage', `unknown corpus action: ${JSON.stringify(action)} (use "corpus add NAME DIR", "corpus list" or "corpus remove NAME")`);
        if (!name) throw new ZkError('usage', `corpus ${action} needs the corpus's NAME`);
        if (action === 'add') {
          if (!dir) throw new ZkError('usage', 'corpus add needs NAME and DIR');
          const added = await api.addCorpus(name, dir);
          return { json: { added }, text: `registered ${added.root} as ${added.name}` };
        }
        const gone = await api.removeCorpus(name);
        return { json: { removed: gone }, text: `removed the name ${gone.name} (${gone.root} is left as it is)` };
      }),
    );
}
