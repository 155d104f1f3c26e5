import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('export <format>')
    .description('write the corpus out: jsonl (every note, exactly) or memory-json (docs/import-export.md); on stdout unless --out')
    .option('--out <path>', 'write to this file (replaced whole) instead of stdout')
    .action(
      cli.action(async (format: string, flags: { out?: string }) => {
        if (cli.globals.json && flags.out === undefined) throw new ZkError('usage', 'export --json needs --out: without it the export itself is printed');
        const { exportMemory } = await import('../api/import.js');
        const { exportText } = await import('../text/import.js');
        const r = await exportMemory(cli.root(), { format, out: flags.out });
        if (r.out === null) return { json: {}, text: r.text };
        return { json: { ...r }, text: exportText(r) };
      }),
    );
}
