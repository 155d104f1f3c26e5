import type { Command } from 'commander';
import type { Invocation } from '../cli/context.js';
import { current } from '../context.js';

// Run by git, not by people: the merge driver `sync` and `init` install (docs/hosts.md#the-merge-rules).
export function register(program: Command, cli: Invocation): void {
  program
    .command('merge-driver <base> <ours> <theirs> [path]')
    .description('git merge driver for notes and the trace (%O %A %B %P): the result replaces OURS; exit 0 clean, 1 conflict')
    .action(async (base: string, ours: string, theirs: string, pathname?: string) => {
      const { runMergeDriver } = await import('../sync/driver.js');
      try {
        cli.exitCode = runMergeDriver([base, ours, theirs, ...(pathname === undefined ? [] : [pathname])], (s) => current().io.stderr(s));
      } catch (err) {
        cli.exitCode = cli.printError(err);
      }
    });
}
