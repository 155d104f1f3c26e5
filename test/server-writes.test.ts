import { execa, type ResultPromise } from 'execa';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, mdFiles, REPO, tempCorpus, tempDir, write, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';

// Writes through the resident server (docs/server.md "Writes"): made by the server under the
// corpus lock that other processes still take, and never twice: a client that told the server to
// write and heard no answer says so (exit 5) instead of writing itself. Run as users run it: the
// built CLI in separate processes, a real socket, a real SIGKILL.

const LOOP = path.join(REPO, 'test', 'workers', 'loop.mjs');
const HAND = path.join(REPO, 'test', 'workers', 'hand-appender.mjs');
const NOTE = '---\nuuid: 00000000-0000-4000-8000-000000000001\n---\n# Judy\n\nJudy paints lake sunrises.\n';

const started: { root: string; env: Record<string, string> }[] = [];
const foreground: ResultPromise[] = [];

afterEach(async () => {
  for (const p of foreground.splice(0)) {
    p.kill('SIGKILL');
    await p.catch(() => undefined);
  }
  for (const { root, env } of started.splice(0)) await zkProcess(['serve', '--stop', '--root', root], { env });
});

/** A corpus with one note, Judy, and the environment its commands run with (servers `mode`, their own runtime folder). */
function setUp(mode: string): { root: string; env: Record<string, string> } {
  const root = tempCorpus();
  write(root, '20261201-judy.md', NOTE);
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  const env = { ZK_MEMORY_SERVER: mode, XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_EMBED: 'off' };
  started.push({ root, env });
  return { root, env };
}

/** `zk-memory serve` in the foreground with the server's own settings `own` (a fault seam, say), once it answers (the process in a box: a promise of it would wait for its end). */
async function serve(root: string, env: Record<string, string>, own: Record<string, string> = {}): Promise<{ proc: ResultPromise }> {
  const p = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env, ...own }, reject: false });
  foreground.push(p);
  let exited: string | undefined;
  void p.then((r) => (exited = `the server exited ${r.exitCode}: ${r.stderr}`));
  await until(
    'the server runs',
    async () => (await zkProcess(['serve', '--status', '--json', '--root', root], { env })).json.running === true,
    30_000,
    () => exited,
  );
  return { proc: p };
}

const zk = (root: string, env: Record<string, string>, args: string[], input?: string) => zkProcess(['--root', root, '--json', ...args], { env, input });

describe('writes through the resident server', () => {
  it('write, merge, supersede and archive are made by the server, with the refusals and similar titles of in-process', async () => {
    const { root, env } = setUp('on');
    await serve(root, env);
    const made = await zk(root, env, ['write', 'judy-cats', "Judy's cats", 'Judy has two cats.']);
    expect(made.json, made.stderr).toMatchObject({ ok: true, action: 'created', server: true, similar: [] });
    // The body from stdin, read by the client and sent with the request.
    const piped = await zk(root, env, ['write', 'ben', 'Ben', '-'], 'Ben sails the lake.');
    expect(piped.json).toMatchObject({ ok: true, server: true });
    expect(fs.readFileSync(path.join(root, piped.json.note.path), 'utf8')).toContain('Ben sails the lake.');
    // The slug check and the similar titles come from what the server keeps.
    const taken = await zk(root, env, ['write', 'judy', 'Judy again', 'x']);
    expect(taken.code).toBe(1);
    expect(taken.json).toMatchObject({ ok: false, error: { code: 'exists' }, server: true });
    const similar = await zk(root, env, ['write', 'judy-cat', 'judy cat', 'Judy and a cat.']);
    expect(similar.json).toMatchObject({ ok: true, server: true, similar: [{ path: made.json.note.path }] });
    const merged = await zk(root, env, ['merge', 'judy', 'Moved to Paris.']);
    expect(merged.json).toMatchObject({ ok: true, server: true });
    expect(fs.readFileSync(path.join(root, '20261201-judy.md'), 'utf8').split('Moved to Paris.').length - 1).toBe(1);
    const superseded = await zk(root, env, ['supersede', 'judy-cat', '--by', 'judy-cats']);
    expect(superseded.json, superseded.stderr).toMatchObject({ ok: true, server: true });
    const archived = await zk(root, env, ['archive', 'ben']);
    expect(archived.json, archived.stderr).toMatchObject({ ok: true, server: true });
    expect(fs.existsSync(path.join(root, '.archive', piped.json.note.path))).toBe(true);
  }, 120_000);

  it('a merge through the server while a program appends by hand and another process merges: every line and fragment is there once', async () => {
    const { root, env } = setUp('on');
    await serve(root, env);
    const hub = path.join(root, '20261201-judy.md');
    const stop = path.join(root, '.zk', 'stop');
    // The hand appends (no lock, as `echo >>` would) until the merges are done; the other process merges under the lock.
    const hand = execa('node', [HAND, hub, '5', '0', 'hand', '', stop], { reject: false });
    const other = execa('node', [LOOP, root, 'merge', '20261201-judy', '10', 'p'], { reject: false, env: { ZK_MEMORY_LOCK_TIMEOUT: '60' } });
    for (let i = 0; i < 10; i++) {
      const r = await zk(root, env, ['merge', 'judy', `frag-s-${i} END-s-${i}`]);
      expect(r.json, r.stderr).toMatchObject({ ok: true, server: true });
    }
    expect((await other).exitCode).toBe(0);
    fs.writeFileSync(stop, '');
    const lines = Number((await hand).stdout);
    expect(lines).toBeGreaterThan(0);
    const text = fs.readFileSync(hub, 'utf8');
    expect(text.startsWith(NOTE)).toBe(true);
    for (let i = 0; i < lines; i++) expect(text.split(`\nhand-${i} \n`).length - 1, `hand-${i}`).toBe(1);
    for (let i = 0; i < 10; i++) {
      expect(text.split(`END-s-${i}\n`).length - 1, `END-s-${i}`).toBe(1);
      expect(text.split(`END-p-${i}\n`).length - 1, `END-p-${i}`).toBe(1);
    }
  }, 180_000);

  it('a server killed after taking a write, before making it: the client says the outcome is unknown (exit 5) and does not write it itself', async () => {
    // `auto`, where a failed read is answered in-process: a write told to the server never is.
    const { root, env } = setUp('auto');
    const server = await serve(root, env, { ZK_MEMORY_FAULT: 'server-write-taken' });
    const before = mdFiles(root);
    const r = await zk(root, env, ['write', 'ben', 'Ben', 'Ben sails the lake.']);
    expect(r.code).toBe(5);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'outcome_unknown' }, server: true });
    expect(r.json.error.message).toMatch(/may or may not have been made/);
    expect((await server.proc).signal).toBe('SIGKILL');
    expect(mdFiles(root)).toEqual(before);
    // Made afterwards (in-process), the note is there once.
    const again = await zkProcess(['--root', root, 'write', 'ben', 'Ben', 'Ben sails the lake.'], { env: { ...env, ZK_MEMORY_SERVER: 'off' } });
    expect(again.code).toBe(0);
    expect(mdFiles(root)).toHaveLength(before.length + 1);
  }, 120_000);

  it('a server killed after making a merge, before answering: exit 5, and the fragment is in the note once', async () => {
    const { root, env } = setUp('auto');
    const server = await serve(root, env, { ZK_MEMORY_FAULT: 'server-write-made' });
    const r = await zkProcess(['--root', root, 'merge', 'judy', 'Moved to Paris. END-once'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: the server of .* stopped before answering .*: the merge may or may not have been made/);
    expect((await server.proc).signal).toBe('SIGKILL');
    expect(fs.readFileSync(path.join(root, '20261201-judy.md'), 'utf8').split('END-once').length - 1).toBe(1);
  }, 120_000);
});
