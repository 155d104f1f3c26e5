// One corpus on a network share, written and searched from two hosts at once: two sshfs mounts of
// one folder with default caching (see helpers/nas.ts). Skipped where sshd, sshfs or FUSE are
// missing, or mounting fails.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { nasUnavailable, startNas, type Nas, type NasHost } from './helpers/nas.js';
import { MOMENT } from './helpers/moments.js';

let nas: Nas | undefined;
let skipped = nasUnavailable();
if (!skipped) {
  try {
    nas = await startNas();
  } catch (err) {
    skipped = `mounting failed: ${(err as Error).message}`;
  }
}
// CI sets ZK_MEMORY_REQUIRE_NAS where it could install what the test needs: there a skip is a failure.
const required = process.env.ZK_MEMORY_REQUIRE_NAS === '1';
if (skipped && !required) console.warn(`NAS tests skipped: ${skipped}`);
describe.runIf(required && skipped)('the NAS test, required here', () => {
  it('has what it needs', () => {
    expect.fail(`the NAS test could not run: ${skipped}`);
  });
});
afterAll(() => nas?.stop());

const LOOP = path.join(REPO, 'test', 'workers', 'loop.mjs');
const COUNTER = path.join(REPO, 'test', 'workers', 'counter.mjs');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh corpus folder on the share: its path on the server and as each host mounts it. */
function shared(name: string): { server: string; a: string; b: string } {
  const server = path.join(nas!.server, name);
  fs.mkdirSync(path.join(server, '.zk'), { recursive: true });
  return { server, a: path.join(nas!.a.mount, name), b: path.join(nas!.b.mount, name) };
}

const on = (host: NasHost, root: string, args: string[], extra: Record<string, string> = {}, input?: string) =>
  zk(['--root', root, ...args], { env: { ...host.env, ...extra }, input });

const NOTE = '# Judy\n\nJudy paints lake sunrises.\n';

describe.skipIf(!nas)('one corpus on a NAS, two hosts with cached mounts', () => {
  it('merges from both hosts at once lose nothing', async () => {
    const c = shared('merges');
    fs.writeFileSync(path.join(c.server, '20261201-judy.md'), NOTE);
    const workers = ['a1', 'a2', 'b1', 'b2'].map((tag) =>
      execa('node', [LOOP, tag.startsWith('a') ? c.a : c.b, 'merge', '20261201-judy', '5', tag], {
        reject: false,
        env: nas![tag.startsWith('a') ? 'a' : 'b'].env,
      }),
    );
    const results = await Promise.all(workers);
    for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
    const text = fs.readFileSync(path.join(c.server, '20261201-judy.md'), 'utf8');
    expect(text.startsWith(NOTE)).toBe(true);
    for (const tag of ['a1', 'a2', 'b1', 'b2']) {
      for (let i = 0; i < 5; i++) expect(text.split(`END-${tag}-${i}\n`).length - 1, `END-${tag}-${i}`).toBe(1);
    }
  });

  it("merges from both hosts at once, host A's made by its resident server, lose nothing", async () => {
    const c = shared('served-merges');
    fs.writeFileSync(path.join(c.server, '20261201-judy.md'), NOTE);
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    const envA = { ...nas!.a.env, ZK_MEMORY_SERVER: 'on', XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_EMBED: 'off' };
    const server = execa('node', [BIN, 'serve', '--root', c.a], { env: { ...process.env, ...envA }, reject: false });
    try {
      await until('the server runs', async () => (await zk(['serve', '--status', '--json', '--root', c.a], { env: envA })).json.running === true, 30_000);
      // Host B merges in-process, under the corpus lock, while host A's merges go through its server.
      const onB = execa('node', [LOOP, c.b, 'merge', '20261201-judy', '5', 'b1'], { reject: false, env: nas!.b.env });
      for (let i = 0; i < 5; i++) {
        const r = await zkProcess(['--root', c.a, '--json', 'merge', '20261201-judy', `frag-s-${i} END-s-${i}`], { env: envA });
        expect(r.json, r.stderr).toMatchObject({ ok: true, server: true });
      }
      expect((await onB).exitCode).toBe(0);
      const text = fs.readFileSync(path.join(c.server, '20261201-judy.md'), 'utf8');
      expect(text.startsWith(NOTE)).toBe(true);
      for (const tag of ['s', 'b1']) {
        for (let i = 0; i < 5; i++) expect(text.split(`END-${tag}-${i}\n`).length - 1, `END-${tag}-${i}`).toBe(1);
      }
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  }, 120_000);

  it('a read-modify-write loop under the corpus lock from both hosts loses no update', async () => {
    const c = shared('counter');
    fs.writeFileSync(path.join(c.server, 'counter.txt'), '0\n');
    // Four writers take turns 24 times over two cached mounts: on a loaded machine one may wait
    // longer than the default 30 s for its turn, which is a wait, not a lost update.
    const runs = [c.a, c.a, c.b, c.b].map((root, i) =>
      execa('node', [COUNTER, root, '6'], { reject: false, env: { ...(i < 2 ? nas!.a : nas!.b).env, ZK_MEMORY_LOCK_TIMEOUT: '120' } }),
    );
    for (const r of await Promise.all(runs)) expect(r.exitCode, r.stderr).toBe(0);
    expect(fs.readFileSync(path.join(c.server, 'counter.txt'), 'utf8').trim()).toBe('24');
  }, 150_000);

  it('a merge killed mid-write leaves the note as it was: the next lock holder finds nothing of it', async () => {
    const c = shared('killed');
    const file = path.join(c.server, '20261201-judy.md');
    fs.writeFileSync(file, NOTE);
    const before = fs.readFileSync(file);
    const env = { ...process.env, ...nas!.a.env, ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '40' };
    const child = spawn('node', [BIN, '--root', c.a, 'merge', '20261201-judy', '-'], { env, stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise((r) => child.once('exit', r));
    // The writer is killed while it reads: what it had not read yet is refused by a closed pipe.
    child.stdin.on('error', () => undefined);
    child.stdin.end(`${'Q'.repeat(4_000_000)}\n`);
    // Killed 50 ms after it takes the lock: a 4 MB append over the network is many writes.
    const lock = path.join(c.server, '.zk', 'lock');
    for (let i = 0; i < 400 && !fs.existsSync(lock) && child.exitCode === null; i++) await sleep(5);
    await sleep(50);
    child.kill('SIGKILL');
    await exited;
    const next = await on(nas!.b, c.b, ['merge', '20261201-judy', 'after the crash'], { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '40' });
    expect(next.code, next.stderr).toBe(0);
    const after = fs.readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.includes('Q')).toBe(false);
    expect(after.subarray(before.length).toString('utf8')).toMatch(new RegExp(`^\\n\\n---\\n\\*${MOMENT} \\(host-b\\):\\* after the crash\\n$`));
  });

  it('a note written on A can be merged into from B by its slug at once', async () => {
    const c = shared('visible');
    fs.writeFileSync(path.join(c.server, '20261201-judy.md'), NOTE);
    expect((await on(nas!.b, c.b, ['list'])).code).toBe(0); // B has listed the folder: its listing is cached
    const written = await on(nas!.a, c.a, ['--json', 'write', 'paris', 'Paris', 'Judy moved to Paris.']);
    expect(written.code, written.stderr).toBe(0);
    const merged = await on(nas!.b, c.b, ['--json', 'merge', 'paris', 'In October.']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(fs.readFileSync(path.join(c.server, written.json.note.path), 'utf8')).toContain('In October.');
  });

  it("fts and auto search from both hosts never exit 4 and never wait on the other host's index", async () => {
    const c = shared('search');
    for (let i = 0; i < 30; i++) {
      fs.writeFileSync(path.join(c.server, `20261101-trip-${i}.md`), `# Trip ${i}\n\nA kayak trip to the glacier lake, day ${i}.\n`);
    }
    const searcher = async (host: NasHost, root: string) => {
      const out = [];
      for (const backend of ['fts', 'auto', 'fts', 'auto']) out.push(await on(host, root, ['--json', 'search', 'glacier kayak', '--backend', backend]));
      return out;
    };
    const writer = async () => {
      for (let i = 0; i < 4; i++) await on(nas!.a, c.a, ['write', `more-${i}`, `More ${i}`, 'Another glacier kayak day.']);
    };
    const [searches] = await Promise.all([Promise.all([searcher(nas!.a, c.a), searcher(nas!.a, c.a), searcher(nas!.b, c.b), searcher(nas!.b, c.b)]), writer()]);
    for (const r of searches.flat()) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.json.backend).toBe('fts');
      expect(r.json.fallback).toBeUndefined();
      expect(r.json.hits.length).toBeGreaterThan(0);
    }
    // Each host keeps its index on its own disk, none on the share.
    const where = async (host: NasHost, root: string) => (await on(host, root, ['--json', 'index', 'status'])).json.index.location;
    const [la, lb] = [await where(nas!.a, c.a), await where(nas!.b, c.b)];
    expect(la).toMatchObject({ placement: 'network', fileSystem: 'fuse' });
    expect(lb).toMatchObject({ placement: 'network', fileSystem: 'fuse' });
    expect(la.dir.startsWith(nas!.a.env.XDG_CACHE_HOME + path.sep)).toBe(true);
    expect(lb.dir.startsWith(nas!.b.env.XDG_CACHE_HOME + path.sep)).toBe(true);
    expect(fs.existsSync(path.join(c.server, '.zk', 'index'))).toBe(false);
    // While a build on A holds A's index lock, B searches with its own index at once.
    fs.mkdirSync(la.lock);
    try {
      const b = await on(nas!.b, c.b, ['--json', 'search', 'glacier', '--backend', 'fts'], { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '60' });
      expect(b.code, b.stderr).toBe(0);
      expect(b.json.hits.length).toBeGreaterThan(0);
    } finally {
      fs.rmdirSync(la.lock);
    }
  });

  it('a resident server on one host answers only after checking every note: it sees what the other host wrote once its own mount does', async () => {
    const c = shared('served');
    for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(c.server, `20261101-trip-${i}.md`), `# Trip ${i}\n\nA kayak trip to the glacier lake, day ${i}.\n`);
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    // ZK_MEMORY_INDEX_SCAN_BELOW=0: a corpus this small would otherwise have every note checked anyway.
    const envA = { ...nas!.a.env, ZK_MEMORY_SERVER: 'on', XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_INDEX_SCAN_BELOW: '0' };
    const server = execa('node', [BIN, 'serve', '--root', c.a], { env: { ...process.env, ...envA }, reject: false });
    const search = (q: string) => zkProcess(['--root', c.a, '--json', 'search', q], { env: envA });
    try {
      await until('the server runs', async () => (await zk(['serve', '--status', '--json', '--root', c.a], { env: envA })).json.running === true, 30_000);
      // A write by the tool starts the index's change journal, which a search trusts between full checks.
      expect((await zkProcess(['--root', c.a, 'write', 'seed', 'Seed', 'A seed note.'], { env: envA })).code).toBe(0);
      expect((await search('glacier')).json).toMatchObject({ ok: true, server: true });
      // Host B edits a note in place, keeping its size: no watcher on A could see it.
      const name = '20261101-trip-3.md';
      const was = fs.readFileSync(path.join(c.b, name), 'utf8');
      fs.writeFileSync(path.join(c.b, name), was.replace('glacier', 'narwhal'));
      const onA = fs.statSync(path.join(c.a, name)).mtimeMs;
      // Searched all along, so the last check of every note is always a moment old when A sees the edit.
      await until(
        "A's mount shows the edit",
        async () => {
          await search('glacier');
          return fs.statSync(path.join(c.a, name)).mtimeMs !== onA && fs.readFileSync(path.join(c.a, name), 'utf8').includes('narwhal');
        },
        60_000,
      );
      const r = await search('narwhal');
      expect(r.json).toMatchObject({ ok: true, server: true, hits: [{ path: name }] });
    } finally {
      server.kill('SIGTERM');
      await server;
    }
  }, 120_000);
});
