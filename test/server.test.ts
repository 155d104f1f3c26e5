import { execa, type ResultPromise } from 'execa';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { askServer, processGone, serverPids } from './helpers/servers.js';
import { TIDY_AFTER_WRITES } from '../src/search/fts-table.js';
import { MAX_REQUEST_BYTES } from '../src/server/protocol.js';
import { MAX_WAITING_CONNECTIONS } from '../src/server/serve.js';

// The resident server (docs/server.md), run as users run it: the built CLI in separate processes,
// a real socket, the real watcher. Every server a test starts is stopped by the test, and the
// run's teardown (test/global-setup.ts) fails when one is left.

const note = (uuid: string, title: string, body: string) => `---\nuuid: ${uuid}\n---\n# ${title}\n\n${body}\n`;
const UUID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const started: { root: string; env: Record<string, string> }[] = [];
const foreground: ResultPromise[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const { root, env } of started.splice(0)) await zk(['serve', '--stop', '--root', root], { env });
  for (const p of foreground.splice(0)) {
    p.kill('SIGKILL');
    await p.catch(() => undefined);
  }
});

/**
 * A corpus of a few notes and the environment its commands run with (servers `mode`, their own
 * runtime folder, searches with `backend`: rg where a search only shows who answers, with no index
 * to build or load), its server stopped when the test ends.
 */
function setUp(mode = 'auto', backend = 'fts'): { root: string; env: Record<string, string> } {
  const set = corpusFor(mode, backend);
  started.push(set);
  return set;
}

function corpusFor(mode: string, backend: string): { root: string; env: Record<string, string> } {
  const root = tempCorpus();
  for (let i = 0; i < 3; i++) write(root, `20261201-note-${i}.md`, note(UUID(i), `Note ${i}`, `Plain words about topic${i}.`));
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  return { root, env: { ZK_MEMORY_SERVER: mode, XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: backend } };
}

/** An LLM that no call reaches: a server started with it has one of its own, which no session is given. */
const SERVER_LLM = { ZK_MEMORY_LLM_BASE: 'http://127.0.0.1:9/v1', ZK_MEMORY_LLM_MODEL: 'stub' };

let shared: Promise<{ root: string; env: Record<string, string>; state: any; proc: ResultPromise }> | undefined;

/**
 * One server run by serve, with an LLM of its own (SERVER_LLM), for the tests whose clients look
 * only at what they themselves get: its notes, its inbox and its socket. Started by the first of
 * them, stopped when the file is done.
 */
function sharedServer() {
  shared ??= (async () => {
    const { root, env } = corpusFor('on', 'fts');
    const proc = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env, ...SERVER_LLM }, reject: false });
    return { root, env, proc, state: await untilRunning(root, env, proc) };
  })();
  return shared;
}

afterAll(async () => {
  const server = await shared?.catch(() => undefined);
  shared = undefined;
  if (!server) return;
  await zk(['serve', '--stop', '--root', server.root], { env: server.env });
  server.proc.kill('SIGKILL');
  await server.proc.catch(() => undefined);
});

const search = (root: string, env: Record<string, string>, q: string, extra: Record<string, string> = {}) =>
  zkProcess(['--root', root, '--json', 'search', q], { env: { ...env, ...extra } });

/** What `serve --status` says, asked in this process (a server answers a status of any build). */
async function serverState(root: string, env: Record<string, string>) {
  return (await zk(['serve', '--status', '--json', '--root', root], { env })).json;
}

/** The state of the server once one runs; `proc`, a foreground server the wait depends on, must not exit first. */
async function untilRunning(root: string, env: Record<string, string>, proc?: ResultPromise) {
  let state: any;
  let exited: string | undefined;
  void proc?.then((r) => (exited = `the server exited ${r.exitCode}: ${r.stderr}`));
  // with `proc`, its own server: another may still be making way for it
  const ours = () => state.running === true && (!proc || state.pid === proc.pid);
  await until(
    'a server runs',
    async () => ((state = await serverState(root, env)), ours()),
    30_000,
    () => exited,
  );
  return state;
}

/** The pids of the server processes of `root` (their command lines name `serve` and the root). */
const serversOf = (root: string) => serverPids((args) => args.includes(root));

/** A server in the foreground, as `zk-memory serve` runs it (with `args`, such as --http), stopped when the test ends. */
function serveInForeground(root: string, env: Record<string, string>, args: string[] = []): ResultPromise {
  const p = execa('node', [BIN, 'serve', '--root', root, ...args], { env: { ...process.env, ...env }, reject: false });
  foreground.push(p);
  return p;
}

/** An MCP session of `zk-memory mcp`, as an agent starts it with `env` (no LLM unless `env` names one), closed when the test ends. */
async function bridged(root: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The lines of the search index's manifest log: a compaction writes one that counts no refresh since. */
const manifestLog = (root: string): any[] =>
  fs
    .readFileSync(path.join(root, '.zk', 'index', 'manifest.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** Send `line` on the server's socket as a hand-written client would; resolves to the lines it answers, once it closes. */
function rawAsk(socket: string, line: string): Promise<any[]> {
  return new Promise((resolve, reject) => {
    let text = '';
    const c = net.connect(socket, () => c.write(`${line}\n`));
    c.on('data', (d) => (text += d));
    c.on('error', reject);
    c.on('close', () =>
      resolve(
        text
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      ),
    );
  });
}

/** A connection to the server's socket that sends nothing yet (errors ignored: the server may cut it off). */
function connectRaw(socket: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const c = net.connect(socket, () => resolve(c));
    c.once('error', reject);
    c.on('error', () => undefined);
  });
}

const closed = (c: net.Socket) => new Promise<void>((resolve) => (c.destroyed ? resolve() : c.once('close', () => resolve())));

describe('the resident server', () => {
  it('auto: the first call answers in-process and starts a server, which answers the next; status and serve --status say what runs', async () => {
    const { root, env } = setUp('auto', 'rg');
    const first = await search(root, env, 'topic1');
    expect(first.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-1.md' }] });
    const state = await untilRunning(root, env);
    expect(state).toMatchObject({
      ok: true,
      running: true,
      pid: expect.any(Number),
      since: expect.any(String),
      rss: expect.any(Number),
      socket: expect.stringMatching(/\.sock$/),
    });
    expect(Buffer.byteLength(state.socket)).toBeLessThanOrEqual(107);
    // ps shows which corpus the server serves
    const cmdline = fs.readFileSync(`/proc/${state.pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline).toEqual(expect.arrayContaining(['serve', root]));
    // started with V8's young generation and malloc's arenas kept small (docs/server.md#memory), a variable the caller set winning
    expect(cmdline).toContain('--max-semi-space-size=8');
    const environ = fs.readFileSync(`/proc/${state.pid}/environ`, 'utf8').split('\0');
    expect(environ).toEqual(expect.arrayContaining(['MALLOC_ARENA_MAX=2', 'MALLOC_TRIM_THRESHOLD_=131072']));
    const second = await search(root, env, 'topic1');
    expect(second.json).toMatchObject({ ok: true, server: true, hits: [{ path: '20261201-note-1.md' }] });
    expect(second.json.hits).toEqual(first.json.hits);
    // a reader that goes away before the server's answer is written is no error either
    const early = await execa('bash', ['-o', 'pipefail', '-c', `node "${BIN}" --root "${root}" --json list | head -c 0`], {
      env: { ...process.env, ...env },
      reject: false,
    });
    expect([early.exitCode, early.stderr]).toEqual([0, '']);
    for (const args of [['read', 'note-2'], ['list'], ['tend', 'check']]) {
      const r = await zkProcess(['--root', root, '--json', ...args], { env });
      expect(r.json.server, args.join(' ')).toBe(true);
    }
    // calls at once, each with its own settings: the backend each asked for
    const backends = ['rg', 'fts', 'rg', 'fts'];
    const together = await Promise.all(backends.map((b) => search(root, env, 'topic1', { ZK_MEMORY_BACKEND: b })));
    expect(together.map((r) => [r.json.server, r.json.backend, r.json.hits[0].path])).toEqual(backends.map((b) => [true, b, '20261201-note-1.md']));
    const status = await zkProcess(['--root', root, '--json', 'status'], { env });
    expect(status.json.server).toMatchObject({ running: true, pid: state.pid, answered: true, socket: state.socket });
    const stop = await zk(['serve', '--stop', '--json', '--root', root], { env });
    expect(stop.json).toMatchObject({ stopped: true, pid: state.pid });
    expect((await serverState(root, env)).running).toBe(false);
    expect(fs.existsSync(state.socket)).toBe(false);
  });

  it('a server started in the background exits when idle and makes way for serve; one started by serve stays, and a second serve of the corpus is refused', async () => {
    const { root, env } = setUp('auto', 'rg');
    const idle = { ...env, ZK_MEMORY_SERVER_IDLE_SECONDS: '3' };
    await search(root, idle, 'topic0');
    const { pid, background } = await untilRunning(root, env);
    expect(background).toBe(true);
    await until('the idle server exits', () => processGone(pid), 15_000);
    // one started again in the background makes way for serve, which stays
    await search(root, idle, 'topic0');
    const again = await untilRunning(root, env);
    const kept = await untilRunning(root, env, serveInForeground(root, idle));
    expect(kept).toMatchObject({ background: false });
    expect(kept.pid).not.toBe(again.pid);
    await until('the background server made way', () => processGone(again.pid), 15_000);
    const second = await zkProcess(['serve', '--root', root, '--json'], { env });
    expect(second.code).toBe(4);
    expect(second.json.error.message).toMatch(/^a server already serves /);
    await new Promise((r) => setTimeout(r, 4000)); // past the idle limit, which serve does not have
    expect((await serverState(root, env)).pid).toBe(kept.pid);
  });

  it('a background server an agent keeps a quiet MCP session open with stays past its idle limit, and answers the session after', async () => {
    const { root, env } = setUp('auto', 'rg');
    const idle = { ...env, ZK_MEMORY_SERVER_IDLE_SECONDS: '2' };
    const agent = await bridged(root, idle);
    const search = async () => ((await agent.callTool({ name: 'search', arguments: { query: 'topic0' } })) as any).structuredContent;
    expect((await search()).hits.map((h: any) => h.path)).toEqual(['20261201-note-0.md']);
    const { pid, background } = await untilRunning(root, env);
    expect(background).toBe(true);
    await new Promise((r) => setTimeout(r, 3500)); // past the idle limit, no call made
    expect(processGone(pid)).toBe(false);
    expect((await search()).hits.map((h: any) => h.path)).toEqual(['20261201-note-0.md']);
  });

  it('off never starts one; on without a server fails with exit 4 and says why', async () => {
    const { root, env } = setUp('off', 'rg');
    expect((await search(root, env, 'topic0')).json.server).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect((await serverState(root, env)).running).toBe(false);
    const on = await search(root, env, 'topic0', { ZK_MEMORY_SERVER: 'on' });
    expect(on.code).toBe(4);
    expect(on.json).toMatchObject({ ok: false, error: { code: 'no_server', message: expect.stringMatching(/no server answered .*no server runs/) } });
    const text = await zkProcess(['--root', root, 'search', 'topic0'], { env: { ...env, ZK_MEMORY_SERVER: 'on' } });
    expect(text.stderr).toMatch(/^error: no server answered for .*zk-memory serve --root/);
  });

  it('sees every change made before the request: added, removed, renamed, and a same-size edit in place that put the mtime back', async () => {
    const { root, env } = setUp('on');
    const server = await untilRunning(root, env, serveInForeground(root, env));
    expect((await search(root, env, 'topic0')).json.server).toBe(true);
    // what the server answers, asked from this process as the command line's client asks it
    const ask = (args: string[]) => askServer(server, ['--root', root, '--json', ...args], { env });
    const file = path.join(root, '20261201-note-0.md');
    const was = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('topic0', 'zebra0'));
    fs.utimesSync(file, was.atime, was.mtime);
    expect(fs.statSync(file).size).toBe(was.size);
    expect((await ask(['search', 'zebra0'])).json.hits.map((h: any) => h.path)).toEqual(['20261201-note-0.md']);
    // list, status and tend check keep their answers in memory: the same edit reaches them too
    const titles = async () => (await ask(['list'])).json;
    expect((await titles()).server).toBe(true);
    const two = path.join(root, '20261201-note-2.md');
    const twoWas = fs.statSync(two);
    fs.writeFileSync(two, fs.readFileSync(two, 'utf8').replace('# Note 2', '# Eton 2'));
    fs.utimesSync(two, twoWas.atime, twoWas.mtime);
    expect((await titles()).notes.map((n: any) => n.title)).toEqual(['Note 0', 'Note 1', 'Eton 2']);
    const count = async () => (await ask(['status'])).json.notes;
    expect(await count()).toBe(3);
    write(root, '20261201-added.md', note(UUID(50), 'Added', 'Words about giraffe.'));
    expect((await ask(['search', 'giraffe'])).json.hits.map((h: any) => h.path)).toEqual(['20261201-added.md']);
    expect(await count()).toBe(4);
    expect((await titles()).notes.map((n: any) => n.title)).toEqual(['Added', 'Note 0', 'Note 1', 'Eton 2']);
    fs.renameSync(path.join(root, '20261201-added.md'), path.join(root, '20261201-renamed.md'));
    expect((await ask(['search', 'giraffe'])).json.hits.map((h: any) => h.path)).toEqual(['20261201-renamed.md']);
    expect((await titles()).notes.map((n: any) => n.path)).toEqual(['20261201-note-0.md', '20261201-note-1.md', '20261201-note-2.md', '20261201-renamed.md']);
    fs.rmSync(path.join(root, '20261201-renamed.md'));
    expect((await ask(['search', 'giraffe'])).json.hits).toEqual([]);
    expect(await count()).toBe(3);
    // a bare slug names the note the server keeps under it: dated long ago, so only the kept names can tell
    const byRef = async (ref: string) => (await ask(['read', ref])).json;
    write(root, '20250105-ocelot.md', note(UUID(51), 'Small wild cat', 'Spotted.'));
    expect(await byRef('ocelot')).toMatchObject({ server: true, note: { path: '20250105-ocelot.md' } });
    fs.renameSync(path.join(root, '20250105-ocelot.md'), path.join(root, '20250106-margay.md'));
    expect(await byRef('margay')).toMatchObject({ server: true, note: { path: '20250106-margay.md' } });
    expect(await byRef('ocelot')).toMatchObject({ server: true, ok: false, error: { code: 'not_found' } });
    fs.rmSync(path.join(root, '20250106-margay.md'));
    expect(await byRef('margay')).toMatchObject({ server: true, ok: false, error: { code: 'not_found' } });
    // status's figures, kept by the server until a note changes, agree with an in-process status
    const figures = async (mode: string) => {
      const r = (mode === 'on' ? await ask(['status']) : await zk(['--root', root, '--json', 'status'], { env: { ...env, ZK_MEMORY_SERVER: mode } })).json;
      expect(r.server.answered ?? false).toBe(mode === 'on');
      return { notes: r.notes, byKind: r.byKind, superseded: r.superseded, pending: r.index.pending };
    };
    write(root, '20261201-kinded.md', `---\nuuid: ${UUID(52)}\nkind: decision\nsuperseded_by: ${UUID(0)}\n---\n# Kinded\n\nA decision.\n`);
    const withKinded = await figures('on');
    expect(withKinded).toMatchObject({ notes: 4, superseded: 1, byKind: { decision: 1 } });
    expect(withKinded).toEqual(await figures('off'));
    // the index took it in with a search: status says so at once, though no note changed
    expect(withKinded.pending).toBe(1);
    const refreshed = await ask(['search', 'decision', '--history']);
    expect(refreshed.json.hits.map((h: any) => h.path)).toEqual(['20261201-kinded.md']);
    expect(await figures('on')).toEqual({ ...withKinded, pending: 0 });
    fs.rmSync(path.join(root, '20261201-kinded.md'));
    expect(await figures('on')).toMatchObject({ notes: 3, superseded: 0, byKind: { decision: 0 } });
    // a write by the tool itself (in-process, under the lock) is seen too
    expect((await zkProcess(['--root', root, 'write', 'okapi', 'Okapi', 'The okapi lives in forests.'], { env })).code).toBe(0);
    expect((await ask(['search', 'okapi'])).json.hits.map((h: any) => h.path)).toEqual([expect.stringMatching(/-okapi\.md$/)]);
    expect(fs.readdirSync(root).filter((f) => f.startsWith('.zk-cookie'))).toEqual([]);
  });

  it('a burst that overflows the kernel event queue while the server is stopped loses nothing: an edit made after it is found', async () => {
    const { root, env } = setUp('on');
    const { pid } = await untilRunning(root, env, serveInForeground(root, env));
    expect((await search(root, env, 'topic1')).json.server).toBe(true);
    const queue = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8'));
    process.kill(pid, 'SIGSTOP');
    try {
      // More events than the queue holds: a file in the root itself renamed back and forth (two
      // events a rename, none the same as the one before), then the edit, whose event is dropped.
      const names = [path.join(root, 'x0.txt'), path.join(root, 'x1.txt')];
      fs.writeFileSync(names[0], '');
      for (let i = 0; i < (queue + 500) / 2; i++) fs.renameSync(names[i % 2], names[(i + 1) % 2]);
      const file = path.join(root, '20261201-note-1.md');
      const was = fs.statSync(file);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('topic1', 'walrus'));
      fs.utimesSync(file, was.atime, was.mtime);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const r = await search(root, env, 'walrus');
    expect(r.json, r.stderr).toMatchObject({ server: true, hits: [{ path: '20261201-note-1.md' }] });
  });

  it('a hung, killed, stale or other-build server never changes an answer: the call is answered in-process, the stale server replaced', async () => {
    const { root, env } = setUp('auto', 'rg');
    await search(root, env, 'topic0');
    const { pid, socket } = await untilRunning(root, env);
    // killed: the socket is left behind, stale; the call answers in-process and a new server replaces it
    process.kill(pid, 'SIGKILL');
    await until('the server is gone', () => processGone(pid), 5000);
    expect(fs.existsSync(socket)).toBe(true);
    const stale = await search(root, env, 'topic2');
    expect(stale.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-2.md' }] });
    const replaced = await untilRunning(root, env);
    expect(replaced.pid).not.toBe(pid);
    expect((await search(root, env, 'topic2')).json.server).toBe(true);
    // hung: the call answers in-process within the budget (the server it then starts finds the socket held, and goes)
    process.kill(replaced.pid, 'SIGSTOP');
    const t0 = Date.now();
    const hung = await search(root, env, 'topic2');
    const extra = Date.now() - t0;
    process.kill(replaced.pid, 'SIGCONT');
    expect(hung.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-2.md' }] });
    expect(extra).toBeLessThan(10_000); // the budget itself is measured in npm run bench
    expect((await serverState(root, env)).pid).toBe(replaced.pid);
    // the server the hung call started goes once it finds the socket held: gone before the stop, or it would take the socket after
    await until('the server the hung call started has gone', () => serversOf(root).every((p) => p === replaced.pid), 15_000);
    await zk(['serve', '--stop', '--root', root], { env });
    // another build started in the background: never taken; it is asked to make way, and one of this build takes its place
    const other = serveInForeground(root, { ...env, ZK_MEMORY_FAULT: 'server-other-build' }, ['--background']);
    const old = await untilRunning(root, env, other);
    const answered = await search(root, env, 'topic1');
    expect(answered.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-1.md' }] });
    await other;
    const fresh = await untilRunning(root, env);
    expect(fresh.pid).not.toBe(old.pid);
  });

  it('a socket folder of the wrong mode, or a symlink in its place, is refused: auto answers in-process, on says why', async () => {
    const { root, env } = setUp('auto', 'rg');
    const folder = path.join(env.XDG_RUNTIME_DIR, 'zk-memory');
    fs.mkdirSync(folder, { mode: 0o755 });
    fs.chmodSync(folder, 0o755);
    const r = await search(root, env, 'topic0');
    expect(r.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-0.md' }] });
    await new Promise((res) => setTimeout(res, 500));
    expect(fs.readdirSync(folder)).toEqual([]);
    const on = await search(root, env, 'topic0', { ZK_MEMORY_SERVER: 'on' });
    expect(on.code).toBe(4);
    expect(on.json.error.message).toMatch(/may be entered by others \(mode 755\)/);
    // a symlink where the folder should be, even to a private folder, is not followed
    fs.rmSync(folder, { recursive: true });
    const elsewhere = tempDir('zk-rt-elsewhere-');
    fs.chmodSync(elsewhere, 0o700);
    fs.symlinkSync(elsewhere, folder);
    const linked = await search(root, env, 'topic0', { ZK_MEMORY_SERVER: 'on' });
    expect(linked.code).toBe(4);
    expect(linked.json.error.message).toMatch(/socket folder .* is not a folder/);
    expect((await search(root, env, 'topic0')).json).toMatchObject({ ok: true, server: false });
    await new Promise((res) => setTimeout(res, 500));
    expect(fs.readdirSync(elsewhere)).toEqual([]);
  });

  it('two calls racing to start a server give one server; it ends when its corpus folder is deleted', async () => {
    const { root, env } = setUp('auto', 'rg');
    const runs = await Promise.all(Array.from({ length: 3 }, () => search(root, env, 'topic0')));
    for (const r of runs) expect(r.json).toMatchObject({ ok: true, hits: [{ path: '20261201-note-0.md' }] });
    const { pid } = await untilRunning(root, env);
    // A loser slow to start may still be alive a moment; it must go on its own, leaving the winner.
    await until('the losers have gone', () => serversOf(root).length <= 1, 15_000);
    expect(serversOf(root)).toEqual([pid]);
    fs.rmSync(root, { recursive: true, force: true });
    await until('the server ends', () => processGone(pid), 30_000);
  });

  it('compacts the search index once writes pause after many refreshes, while searches go on; every search before and after finds every change, in the server and in-process', async () => {
    const { root, env } = setUp('on');
    const server = await untilRunning(root, env, serveInForeground(root, env));
    const log = () => manifestLog(root);
    // the server asked from this process, as the command line's client asks it; the same search in-process
    const hits = async (q: string, mode = 'on') => {
      const args = ['--root', root, '--json', 'search', q];
      const r = mode === 'on' ? await askServer(server, args, { env }) : await zk(args, { env: { ...env, ZK_MEMORY_SERVER: mode } });
      expect(r.json.server).toBe(mode === 'on');
      return r.json.hits.map((h: any) => h.path);
    };
    expect(await hits('topic1')).toEqual(['20261201-note-1.md']); // builds the index
    for (let i = 0; i < TIDY_AFTER_WRITES + 1; i++) {
      fs.appendFileSync(path.join(root, `20261201-note-${i % 3}.md`), `Word${i}x.\n`);
      expect(await hits(`word${i}x`)).toEqual([`20261201-note-${i % 3}.md`]);
    }
    expect(log().at(-1)).toMatchObject({ refreshes: TIDY_AFTER_WRITES + 1 });
    // a line that changes no note, and counts no refresh since: the table was compacted, though searches never paused
    await until(
      'the index is compacted',
      async () => {
        expect(await hits('topic1')).toEqual(['20261201-note-1.md']);
        await new Promise((r) => setTimeout(r, 200)); // a search every quarter second or so
        return log().at(-1).refreshes === 0;
      },
      30_000,
    );
    expect(log().at(-1)).toMatchObject({ set: [], del: [] });
    for (let i = 0; i < TIDY_AFTER_WRITES + 1; i++) {
      expect(await hits(`word${i}x`)).toEqual([`20261201-note-${i % 3}.md`]);
      expect(await hits(`word${i}x`, 'off')).toEqual([`20261201-note-${i % 3}.md`]);
    }
    fs.appendFileSync(path.join(root, '20261201-note-0.md'), 'Quokka.\n');
    expect(await hits('quokka')).toEqual(['20261201-note-0.md']);
    const status = await zk(['--root', root, '--json', 'status'], { env: { ...env, ZK_MEMORY_SERVER: 'off' } });
    expect(status.json.index).toMatchObject({ exists: true, fresh: true, pending: 0 });
  });

  it('compacts the search index once writes pause while an agent keeps its MCP session open: an open session holds back no compaction', async () => {
    const { root, env } = setUp('on');
    await untilRunning(root, env, serveInForeground(root, env));
    const agent = await bridged(root, env);
    const hits = async (q: string) => {
      const r = (await agent.callTool({ name: 'search', arguments: { query: q } })) as any;
      expect(r.structuredContent.ok).toBe(true);
      return r.structuredContent.hits.map((h: any) => h.path);
    };
    expect(await hits('topic1')).toEqual(['20261201-note-1.md']); // builds the index
    for (let i = 0; i < TIDY_AFTER_WRITES + 1; i++) {
      fs.appendFileSync(path.join(root, `20261201-note-${i % 3}.md`), `Word${i}x.\n`);
      expect(await hits(`word${i}x`)).toEqual([`20261201-note-${i % 3}.md`]);
    }
    expect(manifestLog(root).at(-1)).toMatchObject({ refreshes: TIDY_AFTER_WRITES + 1 });
    await until(
      'the index is compacted, the session still open',
      async () => {
        expect(await hits('topic1')).toEqual(['20261201-note-1.md']);
        await new Promise((r) => setTimeout(r, 200)); // the agent searches every quarter second or so
        return manifestLog(root).at(-1).refreshes === 0;
      },
      30_000,
    );
    for (let i = 0; i < TIDY_AFTER_WRITES + 1; i++) expect(await hits(`word${i}x`)).toEqual([`20261201-note-${i % 3}.md`]);
  });

  describe('one server, several clients', () => {
    it("read's backlinks and tend check's findings come from what the server keeps of every note: they follow added, edited and removed links as in-process", async () => {
      const { root, env, state: server } = await sharedServer();
      // the server asked from this process, as the command line's client asks it; the same command in-process
      const run = (mode: string, args: string[]) =>
        mode === 'on'
          ? askServer(server, ['--root', root, '--json', ...args], { env })
          : zk(['--root', root, '--json', ...args], { env: { ...env, ZK_MEMORY_SERVER: mode } });
      const backlinks = async (mode: string) => {
        const r = await run(mode, ['read', 'note-0']);
        expect(r.json.server).toBe(mode === 'on');
        return r.json.backlinks.map((b: any) => [b.path, b.line]);
      };
      const findings = async (mode: string) => {
        const r = await run(mode, ['tend', 'check']);
        expect(r.json.server).toBe(mode === 'on');
        return r.json.findings.filter((f: any) => f.verdict !== 'ok').map((f: any) => [f.file, f.verdict, f.target]);
      };
      const broken: string[][] = [];
      const agreed = async () => {
        const served = await backlinks('on');
        expect(served).toEqual(await backlinks('off'));
        const found = await findings('on');
        expect(found).toEqual(await findings('off'));
        broken.push(...found);
        return served;
      };
      expect(await agreed()).toEqual([]);
      write(root, '20261201-wiki.md', note(UUID(60), 'Wiki', 'See [[Note 0]] for more.'));
      expect(await agreed()).toEqual([['20261201-wiki.md', 6]]);
      // the link edited away in place, same size and mtime: only the watcher can tell
      const file = path.join(root, '20261201-wiki.md');
      const was = fs.statSync(file);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('[[Note 0]]', '[[Note 9]]'));
      fs.utimesSync(file, was.atime, was.mtime);
      expect(await agreed()).toEqual([]);
      write(root, '20261201-inline.md', note(UUID(61), 'Inline', 'Line one.\n\nAs [the note](20261201-note-0.md) says.'));
      write(root, '20261201-anchored.md', note(UUID(62), 'Anchored', `[old name](20261130-gone.md)<!-- uuid: ${UUID(0)} -->`));
      expect(await agreed()).toEqual([
        ['20261201-anchored.md', 6],
        ['20261201-inline.md', 8],
      ]);
      fs.rmSync(path.join(root, '20261201-inline.md'));
      expect(await agreed()).toEqual([['20261201-anchored.md', 6]]);
      // the link edited in place to a note that is not there was found broken, and the stale anchor
      expect(broken).toEqual(
        expect.arrayContaining([
          ['20261201-wiki.md', 'broken', 'Note 9'],
          ['20261201-anchored.md', 'stale', '20261130-gone.md'],
        ]),
      );
      // a dead link is looked up in the archive, which nothing watches: a note archived by hand counts at once
      write(root, '20261201-dead.md', note(UUID(63), 'Dead', 'See [it](20261120-moved.md).'));
      expect((await findings('on')).filter((f: string[]) => f[0] === '20261201-dead.md')).toEqual([['20261201-dead.md', 'broken', '20261120-moved.md']]);
      fs.mkdirSync(path.join(root, '.archive'), { recursive: true });
      fs.writeFileSync(path.join(root, '.archive', '20261120-moved.md'), `---\nuuid: ${UUID(64)}\nsuperseded_by: ${UUID(1)}\n---\n# Moved\n`);
      const archived = (await findings('on')).filter((f: string[]) => f[0] === '20261201-dead.md');
      expect(archived).toEqual(await findings('off').then((all) => all.filter((f: string[]) => f[0] === '20261201-dead.md')));
      expect(archived).not.toEqual([['20261201-dead.md', 'broken', '20261120-moved.md']]);
    });

    it("a client's fault seam and process settings stay its own: the server lives on and every other session answers", async () => {
      const {
        root,
        env,
        state: { pid },
      } = await sharedServer();
      const other = await bridged(root, env);
      // A seam that kills the process making a merge, and a body limit the server does not have.
      const hostile = await bridged(root, { ...env, ZK_MEMORY_FAULT: 'append-partial', ZK_MEMORY_MAX_BODY: '10', ZK_MEMORY_SOURCE: 'alice' });
      const merged = (await hostile.callTool({ name: 'merge', arguments: { ref: 'note-1', fragment: 'The walrus hauls out on the ice.' } })) as any;
      expect(merged.structuredContent, JSON.stringify(merged)).toMatchObject({ ok: true });
      // the per-call setting it sent is its own: what it writes carries its name
      expect(fs.readFileSync(path.join(root, '20261201-note-1.md'), 'utf8')).toMatch(/\(alice\):\* The walrus hauls out on the ice\.\n$/);
      expect(processGone(pid)).toBe(false);
      const found = (await other.callTool({ name: 'search', arguments: { query: 'walrus ice' } })) as any;
      expect(found.structuredContent.hits.map((h: any) => h.path)).toEqual(['20261201-note-1.md']);
      const cli = await search(root, { ...env, ZK_MEMORY_FAULT: 'append-partial' }, 'walrus');
      expect(cli.json).toMatchObject({ server: true, hits: [{ path: '20261201-note-1.md' }] });
      expect((await serverState(root, env)).pid).toBe(pid);
    });

    it("a bridged session's ZK_MEMORY_REDACT (a host's MCP entry) is its own: what it writes through a server started without it is redacted, and another session's is not", async () => {
      const {
        root,
        env,
        state: { pid },
      } = await sharedServer();
      const host = await bridged(root, { ...env, ZK_MEMORY_REDACT: '1', ZK_MEMORY_SOURCE: 'claude' });
      const secrets = ['AKIAQWERTYUIOPASDFGH', 'sk-ant-abcdefghijklmnopqrstuv', 'my bank pin\nis 4321'];
      const w = (await host.callTool({
        name: 'write',
        arguments: { slug: 'keys', title: 'Keys', body: `Deploy with ${secrets[0]} and ${secrets[1]}. <private>${secrets[2]}</private>Done.` },
      })) as any;
      expect(w.structuredContent, JSON.stringify(w)).toMatchObject({ ok: true, note: { author: 'claude' } });
      await host.callTool({ name: 'merge', arguments: { ref: 'keys', fragment: `Later: password=${'hunter2hunter2'}` } });
      expect(fs.readFileSync(path.join(root, w.structuredContent.note.path), 'utf8')).toContain('Deploy with [redacted] and [redacted]. Done.');
      const everywhere = (needle: string) =>
        fs.readdirSync(root, { recursive: true }).some((f) => {
          const p = path.join(root, String(f));
          return fs.lstatSync(p).isFile() && fs.readFileSync(p).includes(needle);
        });
      for (const s of [...secrets, 'my bank pin', 'hunter2hunter2']) expect(everywhere(s), s).toBe(false);
      // the setting is the session's, not the server's: a session without it writes as given
      const plain = await bridged(root, env);
      await plain.callTool({ name: 'write', arguments: { slug: 'tag', title: 'Tag', body: 'The <private> tag is literal here.' } });
      expect(everywhere('The <private> tag is literal here.')).toBe(true);
      expect((await serverState(root, env)).pid).toBe(pid);
    });

    it('two agent sessions bridged to one server each take an inbox input of their own with inbox_next, and each is shown its own again', async () => {
      const { root, env } = await sharedServer();
      const inbox = path.join(root, '.zk', 'inbox');
      fs.mkdirSync(inbox, { recursive: true });
      for (const n of [1, 2])
        fs.writeFileSync(
          path.join(inbox, `2026120${n}T000000000Z-input-${n}.json`),
          JSON.stringify({
            version: 1,
            created: `2026-12-0${n}T00:00:00.000Z`,
            source: 'claude:s',
            reason: 'waits',
            items: [{ type: 'text', text: `input ${n}` }],
          }),
        );
      const next = async (c: Client) => ((await c.callTool({ name: 'inbox_next', arguments: {} })) as any).structuredContent;
      const [a, b] = [await bridged(root, env), await bridged(root, env)];
      const first = await next(a);
      const second = await next(b);
      expect([first.held, second.held]).toEqual([false, false]);
      expect([first.file, second.file].sort()).toEqual(['.zk/inbox/20261201T000000000Z-input-1.json', '.zk/inbox/20261202T000000000Z-input-2.json']);
      expect(await next(a)).toMatchObject({ file: first.file, held: true });
      expect(await next(b)).toMatchObject({ file: second.file, held: true });
      // done by one session: gone for both, and the other's input is still its own
      expect(((await a.callTool({ name: 'inbox_done', arguments: { file: first.file } })) as any).structuredContent).toMatchObject({
        ok: true,
        action: 'done',
      });
      expect(await next(b)).toMatchObject({ file: second.file, held: true });
      expect(await next(a)).toMatchObject({ done: true });
    });

    it('a client that sends half a line, or a line past the limit, is cut off; connections that have not spoken are bounded; the server answers on', async () => {
      const {
        root,
        env,
        state: { socket, pid },
      } = await sharedServer();
      const half = await connectRaw(socket);
      half.write('{"kind": "status"');
      const big = await connectRaw(socket);
      big.write('x'.repeat(MAX_REQUEST_BYTES + 1));
      await Promise.all([closed(half), closed(big)]);
      // past the bound, a connection that has not spoken is closed at once; the rest wait their turn
      const held = [];
      for (let i = 0; i < MAX_WAITING_CONNECTIONS + 3; i++) held.push(await connectRaw(socket));
      await until('the connections past the bound are closed', () => held.filter((c) => c.destroyed).length >= 3, 10_000);
      const meanwhile = await search(root, { ...env, ZK_MEMORY_SERVER: 'auto', ZK_MEMORY_BACKEND: 'rg' }, 'topic1');
      expect(meanwhile.json).toMatchObject({ ok: true, hits: [{ path: '20261201-note-1.md' }] });
      for (const c of held) c.destroy();
      expect((await search(root, env, 'topic1')).json).toMatchObject({ server: true, hits: [{ path: '20261201-note-1.md' }] });
      expect(processGone(pid)).toBe(false);
    });

    it('refuses a call for another corpus than its own, however the call names it, and answers one for its own', async () => {
      const {
        root,
        env,
        state: { socket, build },
      } = await sharedServer();
      const other = setUp('on').root;
      const call = (argv: string[], o: { settings?: Record<string, string>; cwd?: string } = {}) =>
        rawAsk(socket, JSON.stringify({ kind: 'call', build, command: 'search', argv, settings: o.settings ?? {}, cwd: o.cwd ?? root }));
      for (const [argv, o] of [
        [['--root', other, '--json', 'search', 'topic1'], {}],
        [['--json', 'search', 'topic1'], { settings: { ZK_MEMORY_ROOT: other } }],
        [['--json', 'search', 'topic1'], { cwd: other }],
      ] as const) {
        expect(await call([...argv], o), JSON.stringify([argv, o])).toEqual([
          { refused: `another corpus: this server serves ${fs.realpathSync(root)}, not ${fs.realpathSync(other)}` },
        ]);
      }
      const own = await call(['--root', root, '--json', 'search', 'topic1']);
      expect(own[0]).toMatchObject({ accepted: true });
      expect(JSON.parse(own.at(-1).stdout)).toMatchObject({ server: true, hits: [{ path: '20261201-note-1.md' }] });
      // a client of the command line is refused too, and answers in-process with the right corpus
      write(other, '20261202-otter.md', note(UUID(9), 'Otter', 'An otter in the other corpus.'));
      const r = await zkProcess(['--root', other, '--json', 'search', 'otter'], { env: { ...env, ZK_MEMORY_SERVER: 'auto', ZK_MEMORY_BACKEND: 'rg' } });
      expect(r.json).toMatchObject({ ok: true, hits: [{ path: '20261202-otter.md' }] });
    });

    it("a bridged session is offered the tools the client's own LLM settings allow, whatever the server's, and told so in its terms", async () => {
      const { root, env } = await sharedServer(); // started with SERVER_LLM
      const llm = SERVER_LLM;
      const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);
      const without = await bridged(root, env);
      expect(without.getInstructions()).toContain('This session has no LLM: keep memories yourself');
      expect(await names(without)).not.toContain('integrate');
      expect(await names(without)).not.toContain('retain');
      const drain = (await without.callTool({ name: 'inbox', arguments: { action: 'drain' } })) as any;
      expect(drain.structuredContent.error).toMatchObject({ code: 'llm_unconfigured' });
      expect(drain.structuredContent.error.message).toMatch(
        /this session has none: set ZK_MEMORY_LLM_BASE and ZK_MEMORY_LLM_MODEL in the environment this MCP server is started with/,
      );
      expect(drain.structuredContent.error.message).not.toMatch(/server was started without/);
      const withLlm = await bridged(root, { ...env, ...llm });
      expect(await names(withLlm)).toEqual(expect.arrayContaining(['integrate', 'retain']));
    });
  });

  it('a command of another build leaves a server run by serve with HTTP where it is: it answers in-process and says why, once', async () => {
    const { root, env } = setUp('auto', 'rg');
    const other = serveInForeground(root, { ...env, ZK_MEMORY_FAULT: 'server-other-build' }, ['--http', '127.0.0.1:0']);
    await untilRunning(root, env, other);
    let old: any;
    await until('it serves HTTP', async () => Boolean((old = await serverState(root, env)).http), 30_000);
    expect(old).toMatchObject({ background: false, http: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/) });
    const first = await search(root, env, 'topic1');
    expect(first.json).toMatchObject({ ok: true, server: false, hits: [{ path: '20261201-note-1.md' }] });
    expect(first.stderr).toMatch(
      new RegExp(
        `^warning: the corpus's server \\(pid ${old.pid}\\) is of another build .* with MCP over HTTP, so it keeps running: commands of this build answer in-process until it is restarted$`,
      ),
    );
    const second = await search(root, env, 'topic2');
    expect([second.json.server, second.json.hits[0].path, second.stderr]).toEqual([false, '20261201-note-2.md', '']);
    // an MCP session of this build is served in-process, and the server stays
    const session = await bridged(root, env);
    const hits = (await session.callTool({ name: 'search', arguments: { query: 'topic0' } })) as any;
    expect(hits.structuredContent.hits.map((h: any) => h.path)).toEqual(['20261201-note-0.md']);
    await new Promise((r) => setTimeout(r, 1000)); // time for a server of this build to have taken its place, were one started
    expect(processGone(old.pid)).toBe(false);
    expect(await serverState(root, env)).toMatchObject({ pid: old.pid, http: old.http });
  });

  it('zk-memory mcp bridges to the server: two sessions share one server, and a write through one is found by the other', async () => {
    const { root, env } = setUp();
    const session = async () => {
      const transport = new StdioClientTransport({
        command: 'node',
        args: [BIN, 'mcp', '--root', root],
        env: { ...(process.env as Record<string, string>), ...env, ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    };
    const [a, b] = [await session(), await session()];
    try {
      const state = await untilRunning(root, env);
      const w = (await a.callTool({ name: 'write', arguments: { slug: 'narwhal', title: 'Narwhal', body: 'The narwhal has a tusk.' } })) as any;
      expect(w.structuredContent.ok).toBe(true);
      const s = (await b.callTool({ name: 'search', arguments: { query: 'narwhal tusk' } })) as any;
      expect(s.structuredContent.hits.map((h: any) => h.title)).toEqual(['Narwhal']);
      expect(serversOf(root)).toEqual([state.pid]);
      // the server killed mid-session: the bridges open new sessions on a new server, and the agents go on
      process.kill(state.pid, 'SIGKILL');
      // a call the dead server took gets an error that says to try again; the next one is answered
      const search = () => a.callTool({ name: 'search', arguments: { query: 'narwhal tusk' } });
      const again = (await search().catch((err: Error) => {
        expect(err.message).toMatch(/the memory server stopped before answering: try again/);
        return search();
      })) as any;
      expect(again.structuredContent.hits.map((h: any) => h.title)).toEqual(['Narwhal']);
      const read = (await b.callTool({ name: 'read', arguments: { ref: 'narwhal' } })) as any;
      expect(read.structuredContent.note.title).toBe('Narwhal');
      expect((await serverState(root, env)).pid).not.toBe(state.pid);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
