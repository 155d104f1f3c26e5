import { execa, type ResultPromise } from 'execa';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { askServer, type RunningServer } from './helpers/servers.js';
import { until } from './helpers/wait.js';

// `list` pages and `--recent` (src/corpus/ops/list.ts): a resident server keeps the current notes
// until one changes, and picks the few newest in one pass instead of sorting every note. Both must
// answer as the command line in its own process does, before and after notes change.

const foreground: ResultPromise[] = [];
const started: { root: string; env: Record<string, string> }[] = [];

afterEach(async () => {
  for (const { root, env } of started.splice(0)) await zkProcess(['serve', '--stop', '--root', root], { env });
  for (const p of foreground.splice(0)) {
    p.kill('SIGKILL');
    await p.catch(() => undefined);
  }
});

const U = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;
const KINDS = ['concept', 'decision', 'entity_update'];

/** 40 notes, their mtimes in 7 steps (so that many tie: the file name then orders them), one superseded by another. */
function corpus(): { root: string; env: Record<string, string> } {
  const root = tempCorpus();
  const base = Date.parse('2026-11-01T00:00:00Z') / 1000;
  for (let i = 0; i < 40; i++) {
    const name = `2026110${1 + (i % 9)}-note-${i}.md`;
    const superseded = i === 3 ? `superseded_by: ${U(4)}\n` : '';
    write(root, name, `---\nuuid: ${U(i)}\ntitle: Note ${i}\ndate: 2026-11-01\nkind: ${KINDS[i % 3]}\n${superseded}---\n\n# Note ${i}\n\nText ${i}.\n`);
    fs.utimesSync(path.join(root, name), base + (i % 7) * 1000, base + (i % 7) * 1000);
  }
  const runtime = tempDir('zk-rt-');
  fs.chmodSync(runtime, 0o700);
  const env = { XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_EMBED: 'off' };
  started.push({ root, env });
  return { root, env };
}

async function serve(root: string, env: Record<string, string>): Promise<RunningServer> {
  const p = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env }, reject: false });
  foreground.push(p);
  let state: any;
  await until('the server runs', async () => (state = (await zk(['serve', '--status', '--json', '--root', root], { env })).json).running === true, 30_000);
  return state;
}

const ASKED = [
  ['list', '--recent', '5'],
  ['list', '--recent', '150'],
  ['list', '--limit', '10', '--offset', '5'],
  ['list', '--history', '--kind', 'decision', '--recent', '50'],
];

/** What each of ASKED lists (file names, total): in-process, and asked of the server as the command line's client asks it. */
async function answers(root: string, env: Record<string, string>, server: RunningServer) {
  const run = async (served: boolean) => {
    const out: unknown[] = [];
    for (const args of ASKED) {
      const argv = ['--root', root, '--json', ...args];
      const r = served ? await askServer(server, argv, { env }) : await zk(argv, { env: { ...env, ZK_MEMORY_SERVER: 'off' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json.server).toBe(served);
      out.push({ names: r.json.notes.map((n: { path: string }) => n.path), total: r.json.total });
    }
    return out;
  };
  return { alone: await run(false), served: await run(true) };
}

/** The notes of the folder now, newest first (ties by file name), current ones only unless `history`. */
function newestFirst(root: string, history = false): string[] {
  return fs
    .readdirSync(root)
    .filter((n) => n.endsWith('.md') && (history || !fs.readFileSync(path.join(root, n), 'utf8').includes('superseded_by:')))
    .map((n) => ({ n, m: fs.statSync(path.join(root, n)).mtimeMs }))
    .sort((a, b) => b.m - a.m || a.n.localeCompare(b.n))
    .map((x) => x.n);
}

describe('list through a resident server', () => {
  it('gives the pages and newest notes the command line alone gives, before and after notes change', async () => {
    const { root, env } = corpus();
    const server = await serve(root, env);
    const before = await answers(root, env, server);
    expect(before.served).toEqual(before.alone);
    const [recent5, recent150] = before.alone as { names: string[]; total: number }[];
    expect(recent5.names).toEqual(newestFirst(root).slice(0, 5));
    expect(recent150.names).toEqual(newestFirst(root));
    expect(recent150.total).toBe(39);

    // A write through the server, and a note superseded by hand: the kept list follows both.
    expect((await zkProcess(['--root', root, 'write', 'fresh', 'Fresh note', 'Just written.'], { env: { ...env, ZK_MEMORY_SERVER: 'on' } })).code).toBe(0);
    const hand = path.join(root, '20261102-note-10.md');
    fs.writeFileSync(hand, fs.readFileSync(hand, 'utf8').replace('kind:', `superseded_by: ${U(11)}\nkind:`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await answers(root, env, server);
    expect(after.served).toEqual(after.alone);
    const [newest] = after.served as { names: string[]; total: number }[];
    expect(newest.names).toEqual(newestFirst(root).slice(0, 5));
    expect(newest.names[0]).toMatch(/-fresh\.md$/);
    expect((after.served[1] as { total: number }).total).toBe(39);
    expect((after.served[3] as { names: string[] }).names).toContain('20261102-note-10.md');
  });
});
