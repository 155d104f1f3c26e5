import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write, zk, zkProcess } from './helpers/corpus.js';

// The name index a write checks its slug and similar titles in (src/corpus/files/name-index.ts):
// what another process wrote, a note deleted, retitled or made by hand, each as the folder says.

const off = { env: { ZK_MEMORY_SERVER: 'off', ZK_MEMORY_EMBED: 'off' } };
const names = (root: string) => path.join(root, '.zk', 'index', 'names');
const note = (uuid: string, title: string) => `---\nuuid: ${uuid}\ntitle: ${title}\n---\n\n# ${title}\n\nBody.\n`;

/** A corpus with an index (and so a complete name index), and the CLI in this process with the server off. */
async function indexed() {
  const root = tempCorpus();
  const run = (...args: string[]) => zk(['--root', root, ...args], off);
  expect((await run('write', 'seed', 'Seed', 'x')).code).toBe(0);
  expect((await run('index')).code).toBe(0);
  expect(fs.existsSync(path.join(names(root), 'complete'))).toBe(true);
  return { root, run };
}

describe('the name index', () => {
  it('sees at once what a write in another process made: its slug is taken, its title is similar', async () => {
    const { root, run } = await indexed();
    const other = await zkProcess(['--root', root, 'write', 'judy', "Judy's cats", 'first'], off);
    expect(other.code, other.stderr).toBe(0);
    const taken = await run('write', 'judy', 'Someone else', 'second');
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/a note named "judy" exists already: \d{8}-judy\.md/);
    const like = await run('write', 'cats', 'judy cat', 'third', '--json');
    expect(like.code, like.stderr).toBe(0);
    expect(like.json.similar.map((s: { title: string }) => s.title)).toEqual(["Judy's cats"]);
  });

  it('drops a note deleted by hand: its slug is free again and it is no longer similar', async () => {
    const { root, run } = await indexed();
    const first = await run('write', 'judy', 'Judy cats', 'first', '--json');
    fs.rmSync(path.join(root, first.json.note.path));
    const again = await run('write', 'judy', 'Judy cats', 'again', '--json');
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.similar).toEqual([]);
  });

  it('checks a title retitled by hand against the note itself', async () => {
    const { root, run } = await indexed();
    const first = await run('write', 'judy', 'Judy cats', 'first', '--json');
    const file = path.join(root, first.json.note.path);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('title: Judy cats', 'title: Dogs of Sam'));
    const like = await run('write', 'judy-cats', 'Judy cats', 'second', '--json');
    expect(like.code, like.stderr).toBe(0);
    expect(like.json.similar).toEqual([]);
  });

  it('knows a note made or retitled by hand once a search has seen it', async () => {
    const { root, run } = await indexed();
    write(root, '20250101-sam.md', note('3b1c2a4e-1111-4222-8333-444455556666', 'Sam bakes bread'));
    // Until the index has seen it, the note is not in the name index: its slug is not found there.
    const before = await run('write', 'sam', 'Another Sam', 'x', '--json');
    expect(before.code, before.stderr).toBe(0);
    expect((await run('search', 'bread', '--backend', 'fts')).code).toBe(0);
    const taken = await run('write', 'sam', 'Yet another Sam', 'y');
    expect(taken.stderr).toMatch(/a note named "sam" exists already: .*20250101-sam\.md/);
    const like = await run('write', 'bread', 'bread bakes Sam', 'z', '--json');
    expect(like.json.similar.map((s: { path: string }) => s.path)).toEqual(['20250101-sam.md']);
  });

  it('lets a ref find a note made by hand that the index has not seen yet', async () => {
    const { root, run } = await indexed();
    write(root, '20250101-ravi.md', note('3b1c2a4e-1111-4222-8333-444455556668', 'Ravi plays piano'));
    const merged = await run('merge', 'ravi', 'And the guitar.');
    expect(merged.code, merged.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, '20250101-ravi.md'), 'utf8')).toContain('And the guitar.');
  });

  it('passes over a torn line and a name that is no note', async () => {
    const { root, run } = await indexed();
    for (const f of fs.readdirSync(names(root)))
      if (f !== 'complete') fs.appendFileSync(path.join(names(root), f), '["s judy", "../outside.md"]\n["t cat judi"');
    const w = await run('write', 'judy', 'Judy cats', 'x', '--json');
    expect(w.code, w.stderr).toBe(0);
    expect(w.json.similar).toEqual([]);
  });

  it('is not trusted before a build from every note has finished', async () => {
    const root = tempCorpus();
    const run = (...args: string[]) => zk(['--root', root, ...args], off);
    write(root, '20250101-ana.md', note('3b1c2a4e-1111-4222-8333-444455556667', 'Ana sails'));
    expect((await run('index')).code).toBe(0);
    fs.rmSync(path.join(names(root), 'complete'));
    fs.rmSync(names(root), { recursive: true });
    fs.mkdirSync(names(root));
    // An empty, unfinished index would say the slug is free: the folder is listed instead.
    const taken = await run('write', 'ana', 'Ana again', 'x');
    expect(taken.stderr).toMatch(/a note named "ana" exists already/);
    const like = await run('write', 'sails', 'ana sail', 'x', '--json');
    expect(like.json.similar.map((s: { path: string }) => s.path)).toEqual(['20250101-ana.md']);
  });
});
