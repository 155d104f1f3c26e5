import type { Command } from 'commander';
import { action, corpusRoot, intOption } from '../cli/context.js';
import { noteLine } from '../cli/format.js';

export function register(program: Command): void {
  program
    .command('split-candidates')
    .description('the notes most in need of splitting: the largest first')
    .option('--top <n>', 'how many (default 10)', intOption('--top'))
    .action(action(async (flags: { top?: number }) => {
      const { splitCandidates } = await import('../pipelines/split-candidates.js');
      const { noteInfo } = await import('../corpus/notes.js');
      const notes = splitCandidates(corpusRoot(), flags.top);
      return {
        json: { candidates: notes.map((n) => ({ ...noteInfo(n), size: n.size })) },
        text: notes.map((n) => `${String(n.size).padStart(8)}  ${noteLine(n)}`).join('\n'),
        exitCode: notes.length ? 0 : 1,
      };
    }));
}
