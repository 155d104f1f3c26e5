import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';
import { settings } from '../context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('init [dir]')
    .description('create a corpus: the root, .zk/ and its .gitignore (safe to run again)')
    .action(
      cli.action(async (dir?: string) => {
        const { init } = await import('../api/notes.js');
        const { initText } = await import('../text/notes.js');
        const { installSyncRules } = await import('../api/sync.js');
        const r = init(dir ?? cli.globals.root ?? settings().root() ?? '.');
        // In a git work tree the corpus gets the merge rules `sync` relies on (docs/hosts.md).
        const rules = await installSyncRules(r.root);
        return { json: { ...r, git_merge_rules: 'installed' in rules }, text: initText(r) };
      }),
    );
}
