import type { Command } from 'commander';
import { current } from '../context.js';
import type { Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('hook <host>')
    .description(
      "what an agent host's hook calls (claude, gemini, generic): context at session start and for each prompt, the session captured when it stops; always exits 0 with output the host accepts",
    )
    .action(async (host: string) => {
      const { hook, hookDeadlineMs } = await import('../api/hook.js');
      const { io, settings } = current();
      // The corpus named on the command line or in the environment; else the hook's working folder says.
      const named = cli.globals.root ?? settings.root();
      let stdin: string | undefined;
      try {
        stdin = io.stdin();
      } catch {
        stdin = undefined; // not UTF-8: answered as bad input
      }
      // In a process of its own, the time it took to start counts against the host's patience; a
      // call made in a long-lived process (a program using the library) counts from its own start.
      const deadlineMs = hookDeadlineMs(cli.surface.server ? undefined : performance.now() - (cli.surface.startedAt ?? 0));
      const root = named === undefined ? undefined : (await import('node:path')).resolve(io.cwd(), named);
      const r = await hook(host, stdin, { root, deadlineMs });
      if (cli.globals.json)
        io.stdout(
          `${JSON.stringify({ ok: true, server: cli.surface.server ?? false, host: r.host, event: r.event, outcome: r.outcome, root: r.root, ...(r.captured ? { captured: r.captured } : {}), output: r.output })}\n`,
        );
      else io.stdout(r.output);
      cli.exitCode = 0;
    });
}
