import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NOTE_FILES, rgPath } from '../src/adapters/ripgrep.js';
import { SERVER_PROCESS } from '../src/process.js';
import { TIDY_AFTER_WRITES } from '../src/search/fts-table.js';
import { callSettings } from '../src/call-settings.js';
import { readManifest } from '../src/search/manifest.js';
import { startEmbedWorker } from './embed-server.js';
import { addBacklinks } from './generate.js';
import { httpLoad } from './http.js';
import { viewerLoad } from './viewer.js';
import { REPO, arg, benchCorpus, inCall, mcpSession, rssMbOf, serverCall, serversUnder, type McpSession } from './harness.js';

// Every figure is a ratio of two medians measured side by side in one run (the two commands
// alternate, run after run), so a busy machine slows both alike.

const SIZES = arg('--sizes', '1000,10000,50000').split(',').map(Number);
const RUNS = Number(arg('--runs', '7'));
/** Whole-corpus commands read every note: fewer runs. */
const SLOW_RUNS = Number(arg('--slow-runs', '3'));
const MCP_SEARCHES = Number(arg('--mcp-searches', '60'));
/** How many searches one MCP session runs at the largest size while its memory is watched (0: none). */
const MCP_MEMORY_SEARCHES = Number(arg('--mcp-memory', '10000'));
/** How many searches the resident server answers at the largest size while its memory is watched (0: none). */
const SERVER_REQUESTS = Number(arg('--server-requests', '10000'));
/** How many calls each of 20 HTTP clients makes at the largest size (docs/http.md; 0: none). */
const HTTP_CALLS = Number(arg('--http-calls', '200'));
/** How many times each page of the browser viewer is measured at the largest size (docs/performance.md#the-viewer; 0: none). */
const VIEWER_RUNS = Number(arg('--viewer-runs', '10'));
/** Only the viewer's cases, at every size. */
const VIEWER_ONLY = process.argv.includes('--viewer-only');
/** Only the resident server's cases (with MCP over HTTP and the viewer at the largest size). */
const SERVER_ONLY = process.argv.includes('--server-only');
/** Only the cases of the goals at a million notes (docs/performance.md#a-million-notes). */
const GOALS = process.argv.includes('--goals');
/** With `--goals`: build the index from nothing first, timed. */
const INDEX_FROM_NOTHING = process.argv.includes('--index-from-nothing');
/** With `--goals`: leave out the in-process cases (`--server-cases-only`). */
const IN_PROCESS = !process.argv.includes('--server-cases-only');
/** With `--goals`: how many merges each of eight processes makes into one note. */
const MERGES = Number(arg('--merges', '100'));
/** With `--goals`: how many mixed calls the server answers while its memory is watched. */
const MIXED_CALLS = Number(arg('--mixed-calls', '2000'));
// --goals: time `write --commit` in a git work tree of the whole corpus (`--no-git` skips it: at 1,000,000 notes its `git add` takes minutes).
const GIT = !process.argv.includes('--no-git');
/** The CLI to measure (another build's `bin/zk-memory.js` to compare). */
const BIN = path.resolve(arg('--bin', path.join(REPO, 'bin', 'zk-memory.js')));
/** Hybrid search needs every note embedded first: slow at scale, so only on request. */
const VECTORS = process.argv.includes('--vectors');
const OUT = arg('--out', path.join(REPO, 'bench', 'out', VIEWER_ONLY ? 'viewer.json' : 'bench.json'));

interface Row {
  size: number | null;
  case: string;
  median_ms: number;
  baseline: string;
  baseline_ms: number;
  ratio: number;
}

// The in-process cases never use or start a resident server, so their figures stay comparable with
// those of builds before it; the server's cases set their own environment (serverEnv below). The
// built-in embedder is off (`--vectors` passes an endpoint, which wins): a server would otherwise
// embed every generated note in the background beside the cases it times (`npm run bench:embed`
// has its figures).
const env = { ...process.env, ZK_MEMORY_BACKEND: '', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '', ZK_MEMORY_SERVER: 'off', ZK_MEMORY_EMBED: 'off' };

/**
 * Wall time of one whole process, in ms, and its output when the command checks it; fails loudly
 * if the process fails. Its output is read through a pipe as a user's would be: ripgrep writing to
 * /dev/null stops at the first match.
 */
function runOnce(c: Cmd): { ms: number; stdout: string } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.cmd, c.args, {
    cwd: c.cwd,
    stdio: [c.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    input: c.input,
    env: c.env ?? env,
    maxBuffer: 256 << 20,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status === null || ![0, 1].includes(r.status)) throw new Error(`${c.cmd} ${c.args.join(' ')} failed: ${r.status} ${r.stderr}`);
  return { ms, stdout: c.check ? r.stdout.toString('utf8') : '' };
}

function timeOnce(cmd: string, args: string[], cwd?: string): number {
  return runOnce({ cmd, args, cwd }).ms;
}

/** Peak resident memory of one process, in MB (GNU time), or null where it cannot be told. */
function peakRssMb(cmd: string, args: string[]): number | null {
  if (!fs.existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env, encoding: 'utf8' });
  const kb = Number(r.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? round(kb / 1024) : null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** A command to time: its environment is the bench's unless given; `check` sees its output after each run, untimed. */
type Cmd = { cmd: string; args: string[]; cwd?: string; env?: NodeJS.ProcessEnv; input?: string; check?: (stdout: string) => void };

/** Medians of `a` and `b` run alternately `runs` times, with optional untimed steps before and after each `a`. */
function paired(a: Cmd, b: Cmd, runs = RUNS, before?: (i: number) => void, after?: (i: number) => void): [number, number] {
  const xa: number[] = [];
  const xb: number[] = [];
  for (let i = 0; i < runs; i++) {
    const rb = runOnce(b);
    xb.push(rb.ms);
    b.check?.(rb.stdout);
    before?.(i);
    const ra = runOnce(a);
    xa.push(ra.ms);
    a.check?.(ra.stdout);
    after?.(i);
  }
  return [median(xa), median(xb)];
}

const round = (x: number) => Math.round(x * 100) / 100;
const rows: Row[] = [];
const extra: Record<string, unknown> = {};
const add = (size: number | null, name: string, ms: number, baseline: string, baseMs: number) => {
  const row = { size, case: name, median_ms: round(ms), baseline, baseline_ms: round(baseMs), ratio: round(ms / baseMs) };
  rows.push(row);
  process.stderr.write(`${size ?? '-'}\t${name}\t${round(ms)} ms\t${round(ms / baseMs)}× ${baseline}\n`);
  return row;
};
/** The rows of the resident server's section, printed in a table of their own. */
const serverRows = new Set<Row>();
const addServer = (...a: Parameters<typeof add>) => void serverRows.add(add(...a));

const zk = (...args: string[]): Cmd => ({ cmd: 'node', args: [BIN, ...args] });
const VERSION = zk('--version');

/** The MCP server over raw stdio: the latency of each search call as the client sees it. */
async function mcpSearches(root: string, query: string, n: number, between?: (i: number) => void) {
  const session = await mcpSession(BIN, root, { ...env, ZK_MEMORY_BACKEND: 'fts' });
  const first = await session.search(query);
  const warm: number[] = [];
  for (let i = 0; i < n; i++) warm.push((await session.search(query)).ms);
  const changed: number[] = [];
  if (between) {
    for (let i = 0; i < 5; i++) {
      between(i);
      changed.push((await session.search(query)).ms);
    }
  }
  await session.close();
  return { first: first.ms, warm: median(warm), changed: changed.length ? median(changed) : null };
}

// The resident server (docs/server.md), warm, one per corpus size, in a runtime folder of the
// bench's own: no other server on the host is asked or disturbed, and every server started in it
// is stopped, and the folder removed, when the bench ends, even on an error.
const SERVER_TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-server-'));
fs.chmodSync(SERVER_TMP, 0o700);
const privateDir = (name: string) => {
  const dir = path.join(SERVER_TMP, name);
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
};
const serverEnv: NodeJS.ProcessEnv = { ...env, ZK_MEMORY_SERVER: 'on', XDG_RUNTIME_DIR: privateDir('server') };
const foreground = new Set<ChildProcess>();
const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** The last resort, on any exit: signal every server of the bench's folder still there, remove the folder. */
function endServersNow(): void {
  for (const child of foreground) if (running(child)) child.kill('SIGTERM');
  for (const pid of serversUnder(SERVER_TMP)) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // gone already
    }
  }
  fs.rmSync(SERVER_TMP, { recursive: true, force: true });
}
process.on('exit', endServersNow);
for (const [signal, n] of [
  ['SIGINT', 2],
  ['SIGTERM', 15],
  ['SIGHUP', 1],
] as const)
  process.on(signal, () => process.exit(128 + n));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** `serve --status|--stop --json` for `root` in environment `e`, parsed. */
function serveJson(root: string, e: NodeJS.ProcessEnv, flag: '--status' | '--stop'): any {
  const r = spawnSync('node', [BIN, 'serve', flag, '--json', '--root', root], { env: e, encoding: 'utf8' });
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`serve ${flag} --root ${root} said: ${r.stdout}${r.stderr}`);
  }
}

/** Wait (untimed) until the servers whose sockets are under `dir` have gone, then kill any left. */
function serversGone(dir: string, why: string): void {
  let left = serversUnder(dir);
  for (const until = Date.now() + 5000; left.length && Date.now() < until; left = serversUnder(dir)) sleepSync(50);
  if (!left.length) return;
  process.stderr.write(`warning: ${why}: server ${left.join(', ')} still running, killed\n`);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

interface Served {
  child: ChildProcess;
  pid: number;
  socket: string;
}

/**
 * `serve --root root` in the foreground, started as a server started in the background is
 * (src/process.ts `SERVER_PROCESS`), spawned without waiting; resolves once `serve --status`
 * says it listens.
 */
async function startServe(root: string): Promise<Served> {
  const child = spawn('node', [...SERVER_PROCESS.nodeArgs, BIN, 'serve', '--root', root], {
    env: { ...SERVER_PROCESS.env, ...serverEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  foreground.add(child);
  let said = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (t: string) => void (said = (said + t).slice(-4000)));
  try {
    for (const until = Date.now() + 120_000; ; await sleep(100)) {
      if (!running(child)) throw new Error(`serve --root ${root} exited (${child.exitCode ?? child.signalCode}): ${said}`);
      const s = serveJson(root, serverEnv, '--status');
      if (s.running) {
        if (s.pid !== child.pid) throw new Error(`serve --status names pid ${s.pid}, not the server started (${child.pid})`);
        return { child, pid: s.pid, socket: s.socket };
      }
      if (Date.now() > until) throw new Error(`serve --root ${root} did not listen within 120 s: ${said}`);
    }
  } catch (err) {
    if (running(child)) child.kill('SIGKILL');
    throw err;
  }
}

/** `serve --stop`, then wait for the foreground process to end (killed after 10 s). */
async function stopServe(served: Served, root: string): Promise<void> {
  const stopped = serveJson(root, serverEnv, '--stop');
  if (running(served.child)) {
    const exited = new Promise((resolve) => served.child.once('exit', resolve));
    if (!(await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]))) {
      process.stderr.write(`warning: serve --stop (${JSON.stringify(stopped)}) left server ${served.pid} running: killed\n`);
      served.child.kill('SIGKILL');
      await exited;
    }
  }
  foreground.delete(served.child);
}

/**
 * Wait (up to 30 s) until the last manifest of `root`'s index counts fewer refreshes since the
 * table was compacted than a resident server compacts after once writes pause
 * (src/search/fts-table.ts `tidyIndex`).
 */
async function compacted(root: string): Promise<void> {
  const refreshes = () => inCall(() => readManifest(root))?.refreshes ?? 0;
  for (const until = Date.now() + 30_000; refreshes() >= TIDY_AFTER_WRITES; await sleep(250)) {
    if (Date.now() > until) throw new Error('the server did not compact the index within 30 s of the writes');
  }
}

/** Run `c` once with `--json` (untimed) and fail unless the resident server answered it. */
function answeredByServer(c: Cmd): void {
  const r = spawnSync(c.cmd, [...c.args, '--json'], { env: c.env, input: c.input, encoding: 'utf8', maxBuffer: 256 << 20 });
  let by: unknown;
  try {
    const j = JSON.parse(r.stdout);
    by = j.ok === false ? undefined : j.server && typeof j.server === 'object' ? j.server.answered : j.server;
  } catch {
    by = undefined;
  }
  if (by !== true) throw new Error(`${c.args.slice(1).join(' ')} was not answered by the server: ${r.stdout.slice(0, 300)} ${r.stderr}`);
}

/** A word no note has, of a fixed length (`prefix` and 8 letters), so a note edited with it keeps its size. */
const mark = (prefix: string) => prefix + Array.from(crypto.randomBytes(8), (b) => String.fromCharCode(97 + (b % 26))).join('');

/** Whether the text output of a search lists `file` among its hits. */
const lists = (stdout: string, file: string) => stdout.split('\n').some((line) => line.startsWith(`${file} `));

/** This build's identity, as the command line sends it: a server of another build refuses the call. */
const { buildId } = (await import(pathToFileURL(path.join(path.dirname(BIN), '..', 'dist', 'src', 'server', 'protocol.js')).href)) as { buildId: () => string };

async function residentServer(size: number, root: string, query: string, largest: boolean): Promise<void> {
  let served = await startServe(root);
  const zs = (...args: string[]): Cmd => ({ ...zk('--root', root, ...args), env: serverEnv });
  const search = zs('search', query, '--backend', 'fts');
  const notes = fs
    .readdirSync(root)
    .filter((f) => f.endsWith('.md') && !f.includes('-bench-added'))
    .sort();
  try {
    answeredByServer(search); // and the server's index settles
    const versionOn: Cmd = { ...VERSION, env: serverEnv };
    const [version, node] = paired(versionOn, { cmd: 'node', args: ['-e', '0'] });
    addServer(size, 'zk-memory --version, a server running (goal ≤ 1.25×)', version, 'node -e 0', node);

    const [fts, v1] = paired(search, VERSION);
    addServer(size, 'search --backend fts through the server, warm (unchanged; goal ≤ 1.3×)', fts, 'zk-memory --version', v1);

    // Another process adds a note (a plain file) before each search, with a word of its own that the
    // search asks for too: the search must find it.
    const searchFor = zs();
    let added = '';
    const addByHand = (i: number) => {
      const word = mark('zkadd');
      added = `${Date.now()}-bench-added-by-hand-${i}.md`;
      const title = `Bench added by hand ${i}`;
      fs.writeFileSync(
        path.join(root, added),
        `---\nuuid: ${crypto.randomUUID()}\ntitle: ${title}\ndate: 2026-11-01\nkind: concept\n---\n\n# ${title}\n\nA kayak trip to the glacier at sunrise, noted by another program: ${word}.\n`,
      );
      searchFor.args = zs('search', `${query} ${word}`, '--backend', 'fts').args;
    };
    searchFor.check = (out) => {
      if (!lists(out, added)) throw new Error(`the server's search did not find ${added}, just added:\n${out.slice(0, 500)}`);
    };
    const [addedMs, v2] = paired(searchFor, VERSION, RUNS, addByHand);
    addServer(size, 'search --backend fts through the server, warm (1 note added by another process; goal ≤ 1.5×)', addedMs, 'zk-memory --version', v2);

    // Another process edits a note in place, keeping its size: one word of a fixed length replaced.
    const edited = notes[2];
    const editedPath = path.join(root, edited);
    const slot = /zkhand[a-z]{8}/;
    if (!slot.test(fs.readFileSync(editedPath, 'utf8'))) {
      fs.appendFileSync(editedPath, `\nEdited by hand: ${mark('zkhand')}.\n`);
      answeredByServer(search); // the one change of size, before the timed runs
    }
    const editInPlace = () => {
      const word = mark('zkhand');
      const before = fs.readFileSync(editedPath, 'utf8');
      const after = before.replace(slot, word);
      if (Buffer.byteLength(after) !== Buffer.byteLength(before)) throw new Error(`the edit of ${edited} changed its size`);
      fs.writeFileSync(editedPath, after);
      return word;
    };
    searchFor.check = (out) => {
      if (!lists(out, edited)) throw new Error(`the server's search did not find ${edited}, just edited:\n${out.slice(0, 500)}`);
    };
    // The edited note is an ordinary note, which the query's own words may rank below others: its new word alone is asked for.
    const [editedMs, v3] = paired(searchFor, VERSION, RUNS, () => (searchFor.args = zs('search', editInPlace(), '--backend', 'fts').args));
    addServer(
      size,
      'search --backend fts through the server, warm (1 note edited in place by another process, same size; goal ≤ 1.5×)',
      editedMs,
      'zk-memory --version',
      v3,
    );

    const slug = notes[0].replace(/\.md$/, '');
    // A server keeps every note's links once a call first asks for them (docs/server.md): the
    // first `read`s find backlinks as in-process while it builds them; `tend check` builds them as
    // it answers. So `read` is timed on a server that keeps them, as every `read` after those is.
    answeredByServer(zs('tend', 'check'));
    for (const [name, cmd, goal] of [
      [`read ${slug}`, zs('read', slug), 1.5],
      ['status', zs('status'), 1.5],
      // The bundle a prompt hook asks for (its hits, their links, cut to 1,000 tokens), and the
      // one a session starts with (figures, pinned, current and recent notes, the inbox).
      [`context "${query}"`, zs('context', query, '--backend', 'fts'), 1.5],
      ['context (the start of a session)', zs('context'), 1.5],
      ['tend check', zs('tend', 'check'), 1.5],
      ['list, every row through a pipe', zs('list'), 3],
    ] as const) {
      answeredByServer(cmd);
      const [ms, v] = paired(cmd, VERSION);
      addServer(size, `${name} through the server, warm (goal ≤ ${goal}×)`, ms, 'zk-memory --version', v);
    }

    // An agent host's hooks (docs/agents.md): the session bundle, and the bundle for a prompt, each
    // a whole `zk-memory hook claude` process fed the host's JSON, answered by the server.
    const hookEvent = (event: string, fields: Record<string, string>) =>
      JSON.stringify({ session_id: 'bench', transcript_path: '/nonexistent', cwd: root, hook_event_name: event, ...fields });
    const injects = (out: string) => {
      if (!JSON.parse(out).hookSpecificOutput?.additionalContext) throw new Error(`a hook added no context: ${out.slice(0, 200)}`);
    };
    for (const [name, input] of [
      ['hook claude SessionStart', hookEvent('SessionStart', { source: 'startup' })],
      ['hook claude UserPromptSubmit', hookEvent('UserPromptSubmit', { prompt: query })],
    ] as const) {
      const cmd: Cmd = { ...zs('hook', 'claude'), input, check: injects };
      answeredByServer(cmd);
      const [ms, v] = paired(cmd, VERSION);
      addServer(size, `${name} through the server, warm (goal ≤ 1.5×)`, ms, 'zk-memory --version', v);
    }
    // A session's Stop after each agent turn: the transcript grows by one exchange before every run,
    // and the hook puts just that exchange in the inbox (docs/agents.md "What is captured").
    const transcript = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'zk-bench-transcript-')), 'session.jsonl');
    const turn = (i: number) =>
      fs.appendFileSync(
        transcript,
        [
          JSON.stringify({ type: 'user', uuid: `u${i}`, message: { role: 'user', content: `How did the kayak trip ${i} to the glacier go?` } }),
          JSON.stringify({
            type: 'assistant',
            uuid: `a${i}`,
            message: { role: 'assistant', content: [{ type: 'text', text: `Trip ${i} went well: sunrise over the glacier.` }] },
          }),
        ].join('\n') + '\n',
      );
    for (let i = 0; i < 20; i++) turn(i);
    const stop: Cmd = {
      ...zs('hook', 'claude'),
      input: JSON.stringify({ session_id: 'bench-stop', transcript_path: transcript, cwd: root, hook_event_name: 'Stop', stop_hook_active: false }),
      check: (out) => void JSON.parse(out),
    };
    answeredByServer(stop);
    let next = 20;
    const [stopMs, vStop] = paired(stop, VERSION, RUNS, () => turn(next++));
    addServer(size, 'hook claude Stop (one new exchange captured into the inbox) through the server, warm (goal ≤ 1.5×)', stopMs, 'zk-memory --version', vStop);
    fs.rmSync(path.dirname(transcript), { recursive: true, force: true });

    // Writes with a server running (docs/server.md "Writes"): a new note of its own name each run,
    // and a fragment merged into one note. A build whose server makes no writes makes them in-process.
    const written: Cmd = zs('write', 'bench-added-written', 'Bench written', 'A kayak trip to the glacier at sunrise.');
    const [writeMs, vWrite] = paired(
      written,
      VERSION,
      RUNS,
      (i) =>
        void (written.args = zk(
          '--root',
          root,
          'write',
          `bench-added-written-${Date.now()}-${i}`,
          `Bench written ${i}`,
          'A kayak trip to the glacier at sunrise.',
        ).args),
    );
    addServer(size, 'write with a server running (goal ≤ 1.5×)', writeMs, 'zk-memory --version', vWrite);
    const merged: Cmd = zs('merge', notes[0].replace(/\.md$/, ''), 'A kayak trip to the glacier at sunrise.');
    const [mergeMs, vMerge] = paired(merged, VERSION);
    addServer(size, 'merge with a server running (goal ≤ 1.5×)', mergeMs, 'zk-memory --version', vMerge);

    // MCP: the stdio bridge to a session on the server against the in-process MCP server, their
    // searches alternating, once the server has compacted the index the cases above refreshed (it
    // does once writes pause for 5 s: docs/server.md), which would otherwise run beside them.
    await compacted(root);
    const bridge = await mcpSession(BIN, root, { ...serverEnv, ZK_MEMORY_BACKEND: 'fts' });
    const local = await mcpSession(BIN, root, { ...env, ZK_MEMORY_BACKEND: 'fts' });
    try {
      await bridge.search(query);
      await local.search(query);
      const xb: number[] = [];
      const xl: number[] = [];
      for (let i = 0; i < MCP_SEARCHES; i++) {
        xl.push((await local.search(query)).ms);
        xb.push((await bridge.search(query)).ms);
      }
      addServer(
        size,
        `MCP search through the stdio bridge, warm (p50 of ${MCP_SEARCHES}; goal ≤ 10 ms)`,
        median(xb),
        'in-process MCP server, warm p50',
        median(xl),
      );
    } finally {
      await bridge.close();
      await local.close();
    }

    const queries = ['kayak glacier sunrise', 'river pipeline', 'Priya rollback export', 'medicine recipe', 'birthday painting'];
    if (largest) {
      // Five agents' MCP sessions: five bridges and the one server they share, against five
      // in-process servers, every session doing the same few searches. With `overview`, each
      // begins as the tool's description asks, which makes an in-process server read every note's
      // metadata.
      const totalRss = async (e: NodeJS.ProcessEnv, plus: number[], overview: boolean) => {
        const sessions: McpSession[] = [];
        try {
          for (let i = 0; i < 5; i++) sessions.push(await mcpSession(BIN, root, { ...e, ZK_MEMORY_BACKEND: 'fts' }));
          for (const s of sessions) {
            if (overview) await s.call('overview', {});
            for (const q of queries) await s.search(q);
          }
          const each = [...sessions.map((s) => s.rssMb()), ...plus.map(rssMbOf)];
          return each.some((mb) => mb === null) ? null : (each as number[]).reduce((a, b) => a + b, 0);
        } finally {
          for (const s of sessions) await s.close();
        }
      };
      // The server that answered every case above also holds what those left (refreshes, the
      // rows of `list`, what `tend check` keeps): told apart from the goal's figures, for a
      // server whose sessions are these five.
      const afterAll = await totalRss(serverEnv, [served.pid], true);
      const fresh = async () => {
        await stopServe(served, root);
        served = await startServe(root);
        // What a server builds of every note once started (src/server/serve.ts), finished before
        // its memory is read: its RSS has not moved by a megabyte for two seconds.
        const samples: number[] = [];
        for (const until = Date.now() + 60_000; Date.now() < until; await sleep(500)) {
          samples.push(rssMbOf(served.pid) ?? 0);
          const last = samples.slice(-5);
          if (last.length === 5 && Math.max(...last) - Math.min(...last) < 1) break;
        }
        return served.pid;
      };
      const inProcess = await totalRss(env, [], true);
      const bridged = await totalRss(serverEnv, [await fresh()], true);
      const searchesInProcess = await totalRss(env, [], false);
      const searchesBridged = await totalRss(serverEnv, [await fresh()], false);
      if (inProcess !== null && bridged !== null && searchesInProcess !== null && searchesBridged !== null) {
        addServer(
          size,
          'total RSS in MB (not ms): 5 MCP stdio bridges + their server, sessions beginning with overview (goal ≤ 0.5×)',
          bridged,
          'total RSS in MB: 5 in-process MCP servers',
          inProcess,
        );
        addServer(
          size,
          'total RSS in MB (not ms): 5 MCP stdio bridges + their server, sessions that only search (goal ≤ 0.5×)',
          searchesBridged,
          'total RSS in MB: 5 in-process MCP servers',
          searchesInProcess,
        );
        if (afterAll !== null) extra[`mcp_5_bridges_rss_mb_server_after_every_case_${size}`] = afterAll;
      } else process.stderr.write(`${size}\tMCP resident memory: not told here (no /proc)\n`);
    }

    if (largest && SERVER_REQUESTS > 100) {
      // The server's memory over many calls, sent straight over its socket as the command line
      // sends them; every 1,000 a note is edited in place by another process (the index refreshes).
      const build = buildId();
      const request = (q: string) => ({
        kind: 'call',
        build,
        command: 'search',
        argv: ['--root', root, 'search', q, '--backend', 'fts'],
        settings: callSettings(serverEnv),
        cwd: process.cwd(),
      });
      const call = async (i: number) => {
        const r = await serverCall(served.socket, request(queries[i % queries.length]));
        if (r.code !== 0) throw new Error(`the server's search failed (${r.code}): ${r.stderr}`);
      };
      for (let i = 1; i <= 100; i++) await call(i);
      const start = rssMbOf(served.pid);
      const samples: number[] = [];
      for (let i = 101; i <= SERVER_REQUESTS; i++) {
        await call(i);
        if (i % 1000 === 0) {
          samples.push(rssMbOf(served.pid) ?? 0);
          editInPlace();
        }
      }
      const end = rssMbOf(served.pid);
      if (start !== null && end !== null) {
        addServer(
          size,
          `server RSS in MB (not ms) after ${SERVER_REQUESTS.toLocaleString('en')} requests (goal ≤ 1.2×)`,
          end,
          'server RSS in MB after 100 requests',
          start,
        );
        extra[`server_rss_mb_every_1000_requests_${size}`] = samples.join(' ');
      }
    }
  } finally {
    await stopServe(served, root);
  }
  serversGone(serverEnv.XDG_RUNTIME_DIR!, `serve --stop --root ${root}`);

  // The first call when no server runs (a fresh runtime folder each run): answered in-process
  // while it starts one in the background, which is stopped after each run, untimed.
  const first: Cmd = { ...zk('--root', root, 'search', query, '--backend', 'fts') };
  const off: Cmd = { ...first, env };
  const fresh = (i: number) => {
    first.env = { ...env, ZK_MEMORY_SERVER: 'auto', XDG_RUNTIME_DIR: privateDir(`first-${size}-${i}`) };
  };
  const stopStarted = () => {
    const e = first.env!;
    let s = serveJson(root, e, '--status');
    for (const until = Date.now() + 30_000; !s.running && Date.now() < until; s = serveJson(root, e, '--status')) sleepSync(50);
    if (!s.running) process.stderr.write(`warning: the first search with ZK_MEMORY_SERVER=auto started no server within 30 s\n`);
    serveJson(root, e, '--stop');
    serversGone(e.XDG_RUNTIME_DIR!, 'serve --stop after the first search');
    fs.rmSync(e.XDG_RUNTIME_DIR!, { recursive: true, force: true });
  };
  const [firstMs, offMs] = paired(first, off, RUNS, fresh, stopStarted);
  addServer(
    size,
    'search --backend fts, first call with no server (ZK_MEMORY_SERVER=auto starts one; goal ≤ 1.1×)',
    firstMs,
    'the same search, ZK_MEMORY_SERVER=off',
    offMs,
  );
}

/**
 * The goals of docs/performance.md#a-million-notes, at `size`: the cases whose cost may grow with
 * the corpus, each timed once per run (`--runs`), in-process (no server; goal: none over 60 s) and
 * through a warm server (ratios to `--version`), with the index built from nothing when asked
 * (`--index-from-nothing`), a note of 1,000 backlinks, eight processes merging into one note, and
 * the server's memory over 2,000 mixed calls.
 */
async function goalCases(size: number, root: string, query: string): Promise<void> {
  const hub = addBacklinks(root, Math.min(1000, size - 1));
  const indexFolder = path.join(root, '.zk', 'index');
  if (INDEX_FROM_NOTHING || !fs.existsSync(indexFolder)) {
    fs.rmSync(indexFolder, { recursive: true, force: true });
    for (const f of fs.readdirSync(path.join(root, '.zk'))) if (f.startsWith('notes-')) fs.rmSync(path.join(root, '.zk', f), { force: true });
    const ms = timeOnce('node', zk('--root', root, 'index').args);
    add(size, 'index from nothing (once; goal ≤ 10 min at 1M)', ms, 'zk-memory --version', versionMs);
    extra[`index_from_nothing_s_${size}`] = round(ms / 1000);
  }
  let n = 0;
  const fresh = () => `bench-added-${Date.now()}-${n++}`;
  const writeCmd = (e: NodeJS.ProcessEnv): Cmd => ({
    ...zk('--root', root, 'write', fresh(), `Bench added ${n}`, 'A kayak trip to the glacier at sunrise.'),
    env: e,
  });
  const cases = (e: NodeJS.ProcessEnv): [string, () => Cmd][] => [
    ['write (a new note)', () => writeCmd(e)],
    ['merge (into one note)', () => ({ ...zk('--root', root, 'merge', hub, `kayak change ${n++}`), env: e })],
    ['search --backend fts', () => ({ ...zk('--root', root, 'search', query, '--backend', 'fts'), env: e })],
    [`read ${hub} (1,000 backlinks)`, () => ({ ...zk('--root', root, 'read', hub), env: e })],
    ['status', () => ({ ...zk('--root', root, 'status'), env: e })],
    ['tend check', () => ({ ...zk('--root', root, 'tend', 'check'), env: e })],
    ['list --limit 50', () => ({ ...zk('--root', root, 'list', '--limit', '50'), env: e })],
    [`context "${query}"`, () => ({ ...zk('--root', root, 'context', query, '--backend', 'fts'), env: e })],
    ['context (the start of a session)', () => ({ ...zk('--root', root, 'context'), env: e })],
  ];
  /** `make()` run `runs` times against `--version`, a fresh command each run. */
  const timed = (make: () => Cmd, runs: number, before?: () => void): [number, number] => {
    try {
      return timedOrThrow(make, runs, before);
    } catch (err) {
      // One case failing (a server that did not accept the call in time on a loaded machine) is
      // said in the results; the other cases still run.
      const said = (err as Error).message.split('\n')[0].slice(0, 300);
      extra[`failed_${size}_${make().args.slice(3).join(' ')}`] = said;
      process.stderr.write(`${size}\tfailed: ${said}\n`);
      return [NaN, NaN];
    }
  };
  const timedOrThrow = (make: () => Cmd, runs: number, before?: () => void): [number, number] => {
    const xa: number[] = [];
    const xb: number[] = [];
    for (let i = 0; i < runs; i++) {
      xb.push(runOnce(VERSION).ms);
      before?.();
      xa.push(runOnce(make()).ms);
    }
    return [median(xa), median(xb)];
  };

  // In-process, the server off: every command finishes, none past 60 s. Those that keep a
  // per-note cache beside the index build it on their first call (read every note once): that
  // call is timed on its own.
  for (const args of IN_PROCESS ? [['status'], ['tend', 'check'], ['list', '--limit', '50']] : []) {
    try {
      const ms = timeOnce('node', zk('--root', root, ...args).args);
      extra[`first_call_in_process_ms_${size}_${args.join(' ')}`] = round(ms);
      process.stderr.write(`${size}\t${args.join(' ')}, in-process, first call (builds its cache): ${round(ms)} ms\n`);
    } catch (err) {
      const said = (err as Error).message.split('\n')[0].slice(0, 300);
      extra[`failed_${size}_first_${args.join(' ')}`] = said;
      process.stderr.write(`${size}\tfailed: ${said}\n`);
    }
  }
  for (const [name, make] of IN_PROCESS ? cases(env) : []) {
    const [ms, v] = timed(make, SLOW_RUNS);
    add(size, `${name}, in-process (goal ≤ 60 s)`, ms, 'zk-memory --version', v);
  }

  let served = await startServe(root);
  try {
    const version: Cmd = { ...VERSION, env: serverEnv };
    const zs = (...args: string[]): Cmd => ({ ...zk('--root', root, ...args), env: serverEnv });
    // Warm-up, untimed: at 1,000,000 notes a server still building what it keeps may not take a
    // call within the command line's wait, so each is asked again until it answers (10 min at most).
    const t0Warm = process.hrtime.bigint();
    for (const cmd of [zs('search', query, '--backend', 'fts'), zs('tend', 'check'), zs('status'), zs('read', hub), zs('list', '--limit', '50')]) {
      for (const until = Date.now() + 600_000; ; await sleep(1000)) {
        try {
          answeredByServer(cmd);
          break;
        } catch (err) {
          if (Date.now() > until) throw err;
        }
      }
    }
    extra[`server_warm_up_s_${size}`] = round(Number(process.hrtime.bigint() - t0Warm) / 1e9);
    const warmRss = rssMbOf(served.pid);
    for (const [name, make] of cases(serverEnv)) {
      const [ms, v] = timed(make, RUNS);
      addServer(size, `${name}, a server running`, ms, 'zk-memory --version', v);
    }
    // Right after another process wrote a note (in-process, so the server hears of it only from the folder).
    const [afterWrite, v2] = timed(
      () => zs('search', query, '--backend', 'fts'),
      RUNS,
      () => void runOnce(writeCmd(env)),
    );
    addServer(size, 'search --backend fts right after a write by another process, a server running', afterWrite, 'zk-memory --version', v2);

    const bridge = await mcpSession(BIN, root, { ...serverEnv, ZK_MEMORY_BACKEND: 'fts' });
    try {
      await bridge.search(query);
      const xs: number[] = [];
      for (let i = 0; i < MCP_SEARCHES; i++) xs.push((await bridge.search(query)).ms);
      addServer(size, `MCP search through the stdio bridge, p50 of ${MCP_SEARCHES} (ms, not a ratio)`, median(xs), 'one', 1);
    } finally {
      await bridge.close();
    }

    // Eight processes, each merging MERGES fragments (100) into the hub note one after another.
    const t0 = process.hrtime.bigint();
    const merger = async (p: number) => {
      for (let i = 0; i < MERGES; i++) {
        const child = spawn('node', [BIN, '--root', root, 'merge', hub, `merger ${p} fragment ${i}`], { env: serverEnv, stdio: 'ignore' });
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        if (code !== 0) throw new Error(`merge ${p}/${i} failed: ${code}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, p) => merger(p)));
    const mergeS = Number(process.hrtime.bigint() - t0) / 1e9;
    extra[`merges_8x${MERGES}_one_note_s_${size}`] = round(mergeS);
    process.stderr.write(`${size}\t8 processes x ${MERGES} merges into one note: ${round(mergeS)} s (goal for 8 x 100 ≤ 60 s)\n`);

    // The server's memory after warm-up, and after 2,000 mixed calls over its socket.
    const build = buildId();
    const argvs = [
      ['search', query, '--backend', 'fts'],
      ['read', hub],
      ['list', '--limit', '50'],
      ['status'],
      ['context', query, '--backend', 'fts'],
      ['tend', 'check'],
    ];
    for (let i = 0; i < MIXED_CALLS; i++) {
      const argv = argvs[i % argvs.length];
      const r = await serverCall(served.socket, {
        kind: 'call',
        build,
        command: argv[0] === 'tend' ? 'tend check' : argv[0],
        argv: ['--root', root, ...argv],
        settings: callSettings(serverEnv),
        cwd: process.cwd(),
      });
      if (r.code !== 0) throw new Error(`the server's ${argv[0]} failed (${r.code}): ${r.stderr}`);
    }
    const afterRss = rssMbOf(served.pid);
    extra[`server_rss_mb_after_warm_up_${size}`] = warmRss;
    extra[`server_rss_mb_after_${MIXED_CALLS}_mixed_calls_${size}`] = afterRss;
    process.stderr.write(`${size}\tserver RSS: ${warmRss} MB after warm-up, ${afterRss} MB after ${MIXED_CALLS} mixed calls (goal ≤ 1,536 MB)\n`);

    // Last, as a git work tree changes what other commands do (status asks git): a write that
    // commits the note it made, the corpus a work tree with every note committed, removed after.
    if (GIT) {
      const made = committedWorkTree(root);
      try {
        const commitWrite = (): Cmd => {
          const w = writeCmd(serverEnv);
          return { ...w, args: [...w.args, '--commit'] };
        };
        const [ms, v] = timed(commitWrite, RUNS);
        // Each run made a commit, or the time is not that of a commit.
        const commits = Number(spawnSync('git', ['rev-list', '--count', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout);
        if (commits !== RUNS + 1) extra[`failed_${size}_write --commit`] = `made ${commits - 1} commits in ${RUNS} runs`;
        else addServer(size, 'write --commit in a git work tree, a server running (goal ≤ 3×)', ms, 'zk-memory --version', v);
        extra[`git_work_tree_made_s_${size}`] = made;
      } finally {
        fs.rmSync(path.join(root, '.git'), { recursive: true, force: true });
      }
    }
  } finally {
    await stopServe(served, root);
  }
  serversGone(serverEnv.XDG_RUNTIME_DIR!, `serve --stop --root ${root}`);
}

/** Make `root` a git work tree with every note committed (an identity of its own for the tool's commits); how long it took, in s. */
function committedWorkTree(root: string): number {
  const t0 = process.hrtime.bigint();
  const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const steps = [
    ['init', '-q'],
    ['config', 'user.name', 'bench'],
    ['config', 'user.email', 'bench@example.org'],
    ['add', '-A'],
    ['commit', '-qm', 'the corpus'],
  ];
  for (const args of steps) {
    const r = spawnSync('git', args, { cwd: root, env: gitEnv, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`git ${args[0]} failed: ${r.stderr}`);
  }
  return round(Number(process.hrtime.bigint() - t0) / 1e9);
}

const embedServer = VECTORS ? await startEmbedWorker() : undefined;
const embed = embedServer ? ['--embed-base', embedServer.url, '--embed-model', 'bench-hashed-64'] : [];

// Start-up: the tool against node itself.
const [versionMs, nodeMs] = paired(VERSION, { cmd: 'node', args: ['-e', '0'] });
add(null, 'zk-memory --version', versionMs, 'node -e 0', nodeMs);

/**
 * The browser viewer in headless Chromium (bench/viewer.ts), on a corpus of the same notes with
 * links between them (the graph); p50 and p90 of each page against its goal, not a ratio.
 */
const viewerRows: string[] = [];
async function viewerCases(size: number): Promise<void> {
  const root = benchCorpus('zk-bench-linked', size, true);
  const dir = privateDir(`viewer-${size}`);
  const v = await viewerLoad(BIN, root, { ...serverEnv, XDG_RUNTIME_DIR: dir }, VIEWER_RUNS);
  serversGone(dir, `serve --stop --root ${root} after the viewer`);
  if (typeof v === 'string') {
    process.stderr.write(`${size}\tviewer: skipped, ${v}\n`);
    return;
  }
  for (const c of v.cases) {
    const goal = c.goal === null ? '' : ` (goal ≤ ${c.goal} ms${c.p50 <= c.goal ? '' : ', missed'})`;
    extra[`viewer_${size}: ${c.case}`] = `p50 ${c.p50} ms, p90 ${c.p90} ms, of ${c.n}${goal}`;
    viewerRows.push(`| ${size} | ${c.case} | ${c.p50} | ${c.p90} | ${c.n} | ${c.goal ?? '-'} |`);
    process.stderr.write(`${size}\tviewer: ${c.case}: p50 ${c.p50} ms, p90 ${c.p90} ms${goal}\n`);
  }
  for (const [k, d] of Object.entries(v.detail)) extra[`viewer_${size}_${k}`] = d;
}

/** The resident server's cases, MCP over HTTP under load and the viewer, at `size` (the last two at the largest). */
async function serverCases(size: number, root: string, query: string): Promise<void> {
  const largest = size === Math.max(...SIZES);
  await residentServer(size, root, query, largest);
  if (largest && HTTP_CALLS > 0) {
    const h = await httpLoad(BIN, root, { ...serverEnv, XDG_RUNTIME_DIR: privateDir(`http-${size}`), ZK_MEMORY_BACKEND: 'fts' }, query, HTTP_CALLS);
    const ms = (x: number) => round(x);
    extra[`http_search_ms_p50_p99_${size}`] = `${ms(h.searchP50)} ${ms(h.searchP99)}`;
    extra[`http_merge_ms_p50_p99_${size}`] = `${ms(h.mergeP50)} ${ms(h.mergeP99)}`;
    extra[`http_server_rss_mb_before_after_${size}`] = `${h.rssBefore} ${h.rssAfter}`;
    extra[`http_server_rss_mb_peak_every_fifth_${size}`] = h.rssPeaks.join(' ');
    process.stderr.write(
      `${size}\tMCP over HTTP, 20 clients x ${HTTP_CALLS} calls: search p50 ${ms(h.searchP50)} ms, p99 ${ms(h.searchP99)} ms; merge p50 ${ms(h.mergeP50)} ms, p99 ${ms(h.mergeP99)} ms; server RSS ${h.rssBefore} -> ${h.rssAfter} MB, peak in each fifth ${h.rssPeaks.join(' ')} MB\n`,
    );
  }
  if (largest && VIEWER_RUNS > 0) await viewerCases(size);
}

for (const size of SIZES) {
  if (VIEWER_ONLY) {
    if (VIEWER_RUNS > 0) await viewerCases(size);
    continue;
  }
  // The goals' corpus gets a hub of backlinks: one of its own, not the other cases'.
  const root = benchCorpus(GOALS ? 'zk-bench-goals' : 'zk-bench', size);
  // Leave what earlier runs added out of this run.
  for (const f of fs.readdirSync(root)) if (f.includes('-bench-added')) fs.rmSync(path.join(root, f));
  const query = 'kayak glacier sunrise';
  if (GOALS) {
    await goalCases(size, root, query);
    continue;
  }
  if (SERVER_ONLY) {
    await serverCases(size, root, query);
    continue;
  }
  const terms = ['kayak', 'glacier', 'sunrise'];
  const search = (backend: string) => zk('--root', root, 'search', query, '--backend', backend);

  // ripgrep as the rg backend runs it: the same terms, the same files, counting every match.
  const rawRg: Cmd = {
    cmd: inCall(rgPath),
    args: [
      '--only-matching',
      '--ignore-case',
      '--with-filename',
      '--null',
      '--no-heading',
      '--no-line-number',
      ...terms.flatMap((t) => ['-e', t]),
      ...NOTE_FILES,
    ],
    cwd: root,
  };
  const [rg, raw] = paired(search('rg'), rawRg);
  add(size, 'search --backend rg', rg, 'raw rg, same terms and files', raw);

  add(size, 'index --rebuild (once)', timeOnce('node', zk('--root', root, 'index', '--rebuild').args), 'zk-memory --version', versionMs);
  timeOnce('node', search('fts').args); // the first search after a rebuild settles the index
  const [fts, v1] = paired(search('fts'), VERSION);
  add(size, 'search --backend fts (unchanged)', fts, 'zk-memory --version', v1);

  const addOne = (i: number) =>
    spawnSync('node', zk('--root', root, 'write', `bench-added-${Date.now()}-${i}`, `Bench added ${i}`, 'A kayak trip to the glacier at sunrise.').args, {
      env,
    });
  const [added, v2] = paired(search('fts'), VERSION, RUNS, addOne);
  add(size, 'search --backend fts (1 note added by the tool)', added, 'zk-memory --version', v2);

  const first = fs
    .readdirSync(root)
    .filter((f) => f.endsWith('.md'))
    .sort()[0];
  const changeOne = (i: number) => spawnSync('node', zk('--root', root, 'merge', first, `kayak change ${i}`).args, { env });
  const [changed, v3] = paired(search('fts'), VERSION, RUNS, changeOne);
  add(size, 'search --backend fts (1 note changed by the tool)', changed, 'zk-memory --version', v3);

  const second = fs
    .readdirSync(root)
    .filter((f) => f.endsWith('.md'))
    .sort()[1];
  const editOne = (i: number) => fs.appendFileSync(path.join(root, second), `\nEdited by hand ${i}: kayak.\n`);
  const [edited, v4] = paired(search('fts'), VERSION, RUNS, editOne);
  add(size, 'search --backend fts (1 note edited in place by hand)', edited, 'zk-memory --version', v4);

  const rss = peakRssMb('node', search('fts').args);
  if (rss !== null) extra[`peak_rss_mb_fts_search_${size}`] = rss;

  for (const [name, cmd] of [
    ['list', zk('--root', root, 'list')],
    ['status', zk('--root', root, 'status')],
    ['tend check', zk('--root', root, 'tend', 'check')],
  ] as const) {
    const [ms, v] = paired(cmd, VERSION, SLOW_RUNS);
    add(size, name, ms, 'zk-memory --version', v);
  }

  const outside = (i: number) => spawnSync('node', zk('--root', root, 'merge', first, `glacier outside ${i}`).args, { env });
  const mcp = await mcpSearches(root, query, MCP_SEARCHES, outside);
  add(size, `MCP search, warm (median of ${MCP_SEARCHES})`, mcp.warm, 'zk-memory --version', versionMs);
  add(size, 'MCP search, first of the session', mcp.first, 'zk-memory --version', versionMs);
  if (mcp.changed !== null) add(size, 'MCP search after another process changed a note', mcp.changed, 'MCP search, warm', mcp.warm);

  if (size === Math.max(...SIZES) && MCP_MEMORY_SEARCHES > 0) {
    // One long session, as an agent's server lives: rotating queries, and every 1,000 searches a
    // note changed by another process (the index is refreshed and its table reopened).
    const queries = ['kayak glacier sunrise', 'river pipeline', 'Priya rollback export', 'medicine recipe', 'birthday painting'];
    const session = await mcpSession(BIN, root, { ...env, ZK_MEMORY_BACKEND: 'fts' });
    for (let i = 0; i < 100; i++) await session.search(queries[i % queries.length]);
    const start = session.rssMb();
    const samples: number[] = [];
    for (let i = 1; i <= MCP_MEMORY_SEARCHES; i++) {
      await session.search(queries[i % queries.length]);
      if (i % 1000 === 0) {
        samples.push(session.rssMb() ?? 0);
        outside(i);
      }
    }
    await session.close();
    if (start !== null) {
      extra[`mcp_rss_mb_after_100_searches_${size}`] = start;
      extra[`mcp_rss_mb_every_1000_searches_${size}`] = samples.join(' ');
      process.stderr.write(`${size}\tMCP resident memory: ${start} MB after 100 searches; every 1,000 after: ${samples.join(', ')} MB\n`);
    }
  }

  if (VECTORS) {
    add(size, 'index, every note embedded (once)', timeOnce('node', zk('--root', root, 'index', ...embed).args), 'zk-memory --version', versionMs);
    const [hybrid, ftsFresh] = paired(zk('--root', root, 'search', query, '--backend', 'hybrid', ...embed), search('fts'));
    add(size, 'search --backend hybrid (fresh)', hybrid, 'search --backend fts', ftsFresh);
  }

  await serverCases(size, root, query);
}
await embedServer?.stop();
// Every server the bench started has stopped: one left is a fault of the bench, said and ended here.
const left = serversUnder(SERVER_TMP);
if (left.length) {
  process.stderr.write(`error: servers left running by the bench: ${left.join(', ')}\n`);
  process.exitCode = 1;
}
endServersNow();

const table = (of: Row[]) =>
  [
    '| notes | case | median ms | baseline | baseline ms | ratio |',
    '|---:|---|---:|---|---:|---:|',
    ...of.map((r) => `| ${r.size ?? '-'} | ${r.case} | ${r.median_ms} | ${r.baseline} | ${r.baseline_ms} | ${r.ratio} |`),
  ].join('\n');
process.stdout.write(`${table(rows.filter((r) => !serverRows.has(r)))}\n`);
if (serverRows.size) process.stdout.write(`\n### resident server\n\n${table([...serverRows])}\n\n`);
if (viewerRows.length)
  process.stdout.write(
    `### viewer (ms, in Chromium)\n\n| notes | case | p50 | p90 | runs | goal ms |\n|---:|---|---:|---:|---:|---:|\n${viewerRows.join('\n')}\n\n`,
  );
for (const [k, v] of Object.entries(extra)) process.stdout.write(`${k}: ${v}\n`);
fs.mkdirSync(path.dirname(OUT), { recursive: true });
const result = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, runs: RUNS, bin: BIN, rows, extra };
fs.writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)}\n`);
