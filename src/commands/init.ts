import type { Command } from 'commander';
import { action, getGlobals } from '../cli/context.js';

export function register(program: Command): void {
  program
    .command('init [dir]')
    .description('create a corpus: the root, .zk/ and its .gitignore (safe to run again)')
    .action(action(async (dir?: string) => {
      const { initCorpus } = await import('../corpus/ops.js');
      const target = dir ?? getGlobals().root ?? process.env.ZK_MEMORY_ROOT ?? '.';
      const r = initCorpus(target);
      return {
        json: { action: r.created ? 'created' : 'exists', root: r.root },
        text: r.created ? `initialized corpus at ${r.root}` : `corpus already initialized at ${r.root}`,
      };
    }));
}
