import type { Command } from 'commander';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/context.js';

export function register(program: Command, cli: Invocation): void {
  program
    .command('serve')
    .description("run the corpus's resident server in the foreground: commands and MCP sessions on this host share its warm index")
    .option('--status', 'say whether a server runs for the corpus, since when, its pid and memory')
    .option('--stop', 'stop the running server')
    .option('--background', 'started by a command for the next call: exit after ZK_MEMORY_SERVER_IDLE_SECONDS without a request')
    .action(cli.action(async (flags: { status?: boolean; stop?: boolean; background?: boolean }) => {
      const root = cli.root();
      const { settings } = current();
      const { serverText } = await import('../views/server.js');
      if (flags.status) {
        const { serverStatus } = await import('../server/status.js');
        const s = await serverStatus(root, settings);
        return { json: { ...s }, text: serverText(s) };
      }
      if (flags.stop) {
        const { stopServer } = await import('../server/status.js');
        const pid = await stopServer(root, settings);
        return { json: { stopped: pid !== undefined, pid: pid ?? null }, text: pid === undefined ? 'no server runs' : `stopped the server (pid ${pid})` };
      }
      const { serve } = await import('../server/serve.js');
      const { onStopSignal } = await import('../process.js');
      if (!cli.surface.main) throw new ZkError('usage', 'serve runs from the command line only');
      const idleMs = flags.background ? settings.serverIdleSeconds() * 1000 : undefined;
      const running = await serve(root, { run: cli.surface.main, idleMs, onReady: (s) => current().io.stderr(`serving ${s.root} on ${s.socket} (pid ${s.pid})\n`) });
      const off = onStopSignal((signal) => running.close(`stopped by ${signal}`));
      const reason = await running.done;
      off();
      return { json: { stopped: reason }, text: `stopped: ${reason}` };
    }));
}
