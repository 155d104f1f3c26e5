import type { Command } from 'commander';
import type { Invocation } from '../cli/invocation.js';
import { current } from '../context.js';

// Run by git, not by people: the merge driver `sync` and `init` install (docs/hosts.md#the-merge-rules).
export function register(program: Command, cli: Invocation): void {
  program
    .command('merge-driver <base> <ours> <theirs> [path]')
    .description('git merge driver for notes (and, with --trace, the trace): %O %A %B; the result replaces OURS; exit 0 clean, 1 conflict')
    .option('--trace', 'the files are versions of .zk/trace.jsonl')
    .action(async (base: string, ours: string, theirs: string, pathname: string | undefined, flags: { trace?: boolean }) => {
      const { runMergeDriver } = await import('../sync/driver.js');
      try {
        const files = [base, ours, theirs, ...(pathname === undefined ? [] : [pathname])];
        cli.exitCode = runMergeDriver(flags.trace ? ['--trace', ...files] : files, (s) => current().io.stderr(s));
      } catch (err) {
        cli.exitCode = cli.printError(err);
      }
    });
}
