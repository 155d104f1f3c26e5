import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import type { Invocation } from '../cli/invocation.js';
import type { ServerState } from '../api/results.js';

interface ServeFlags {
  status?: boolean;
  stop?: boolean;
  background?: boolean;
  http?: string;
  allowRemote?: boolean;
  allowOrigin: string[];
  allowHost: string[];
  tlsCert?: string;
  tlsKey?: string;
  ingestFrom: string[];
  oauth?: boolean;
  publicUrl?: string;
}

const collect = (value: string, all: string[]) => [...all, value];

/** The folders given with --ingest-from, absolute; each must be a folder now. */
function ingestFolders(dirs: string[]): string[] {
  return dirs.map((dir) => {
    const abs = path.resolve(current().io.cwd(), dir);
    if (!fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory()) throw new ZkError('usage', `--ingest-from takes a folder, and ${dir} is none`);
    return abs;
  });
}

/** A server a command started in the background makes way for one run by `serve` (which may serve HTTP, and stays). */
async function makeWayForBackground(root: string): Promise<void> {
  const { serverStatus, stopServer } = await import('../server/status.js');
  const { settings } = current();
  const s = await serverStatus(root, settings);
  if (s.running && s.background) await stopServer(root, settings);
}

/** A resident server for every registered corpus but `root`'s, for HTTP to reach at /mcp/NAME (docs/http.md#corpora-by-name). */
async function serveNamedCorpora(root: string, run: NonNullable<Invocation['surface']['main']>) {
  const [{ serveRegistered }, { sessionContext }] = await Promise.all([import('../server/registered.js'), import('../mcp/server.js')]);
  const own = current();
  return serveRegistered(root, { run, makeWay: makeWayForBackground, sessionContext: (warm) => sessionContext(own, warm) });
}

export function register(program: Command, cli: Invocation): void {
  program
    .command('serve')
    .description("run the corpus's resident server in the foreground: commands and MCP sessions on this host share its warm index")
    .option('--status', 'say whether a server runs for the corpus, since when, its pid and memory')
    .option('--stop', 'stop the running server')
    .option('--background', 'started by a command for the next call: exit after ZK_MEMORY_SERVER_IDLE_SECONDS without a request')
    .option(
      '--http <[host:]port>',
      'serve MCP over HTTP at /mcp too, and every registered corpus at /mcp/NAME (host 127.0.0.1 unless given); every request needs a token (zk-memory token create)',
    )
    .option('--allow-remote', 'with --http: allow a host that is not loopback')
    .option('--allow-origin <url>', 'with --http: an Origin a browser request may come from (repeatable)', collect, [])
    .option('--allow-host <name>', "with --http: a Host name clients reach the server by, such as a reverse proxy's (repeatable)", collect, [])
    .option('--tls-cert <file>', 'with --http: serve HTTPS with this certificate (PEM)')
    .option('--tls-key <file>', "with --http: the certificate's private key (PEM)")
    .option('--oauth', 'with --http: serve OAuth 2.1 too, for clients that speak nothing else (consent with zk-memory token approve)')
    .option('--public-url <url>', 'with --http: the https address clients reach the server by (a reverse proxy or tunnel), for OAuth')
    .option('--ingest-from <dir>', 'with --http: a folder whose documents HTTP clients may study with ingest_start (repeatable; none by default)', collect, [])
    .action(
      cli.action(async (flags: ServeFlags) => {
        const root = cli.root();
        const { settings } = current();
        const { serverText } = await import('../text/server.js');
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
        const { onStopSignal, prepareServerProcess } = await import('../process.js');
        if (!cli.surface.main) throw new ZkError('usage', 'serve runs from the command line only');
        const idleMs = flags.background ? settings.serverIdleSeconds() * 1000 : undefined;
        const http =
          flags.http === undefined
            ? undefined
            : {
                listen: flags.http,
                allowRemote: flags.allowRemote,
                allowOrigins: flags.allowOrigin,
                allowHosts: flags.allowHost,
                tlsCert: flags.tlsCert,
                tlsKey: flags.tlsKey,
                ingestFrom: ingestFolders(flags.ingestFrom),
                oauth: flags.oauth,
                publicUrl: flags.publicUrl,
              };
        if (
          !http &&
          (flags.allowRemote ||
            flags.allowOrigin.length ||
            flags.allowHost.length ||
            flags.tlsCert ||
            flags.tlsKey ||
            flags.ingestFrom.length ||
            flags.oauth ||
            flags.publicUrl)
        )
          throw new ZkError('usage', '--allow-remote, --allow-origin, --allow-host, --ingest-from, --oauth, --public-url and --tls-* go with --http');
        if (!flags.background) await makeWayForBackground(root);
        prepareServerProcess();
        // With HTTP, every registered corpus is served too, at /mcp/NAME, each by a server of its own.
        const named = http ? await serveNamedCorpora(root, cli.surface.main) : undefined;
        const ready = (s: ServerState) => {
          current().io.stderr(`serving ${s.root} on ${s.socket} (pid ${s.pid})${s.http ? `; MCP over HTTP at ${s.http}` : ''}\n`);
          for (const [name, route] of named?.routes ?? []) current().io.stderr(`serving corpus ${name} (${route.root}) at ${s.http}/${name}\n`);
        };
        let running: Awaited<ReturnType<typeof serve>>;
        try {
          running = await serve(root, { run: cli.surface.main, idleMs, http: http && named ? { ...http, corpora: named.routes } : undefined, onReady: ready });
        } catch (err) {
          await named?.close('the server could not start');
          throw err;
        }
        const off = onStopSignal((signal) => running.close(`stopped by ${signal}`));
        const reason = await running.done;
        await named?.close(reason);
        off();
        return { json: { stopped: reason }, text: `stopped: ${reason}` };
      }),
    );
}
