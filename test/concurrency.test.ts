import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseNoteText } from '../src/corpus/note/format.js';
import { mdFiles, REPO, tempCorpus, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';
import { MOMENT } from './helpers/moments.js';

const WORKER = path.join(REPO, 'test', 'workers', 'loop.mjs');

describe('concurrent writers', () => {
  it('8 processes x 100 merges into one note keep all 800 fragments intact', async () => {
    const root = tempCorpus();
    const w = await zk(['--root', root, '--json', 'write', 'shared', 'Shared note', 'Start.']);
    expect(w.code).toBe(0);
    const file = path.join(root, w.json.note.path);
    const before = fs.readFileSync(file, 'utf8');
    const procs = Array.from({ length: 8 }, (_, t) =>
      execa('node', [WORKER, root, 'merge', w.json.note.slug, '100', String(t)], { env: { ZK_MEMORY_LOCK_TIMEOUT: '120' } }),
    );
    await Promise.all(procs);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(before)).toBe(true);
    expect(parseNoteText(after).frontmatter).toEqual(parseNoteText(before).frontmatter);
    const tail = after.slice(before.length);
    const fragments = tail.split('\n\n---\n').filter(Boolean);
    expect(fragments).toHaveLength(800);
    const seen = new Set<string>();
    for (const f of fragments) {
      const m = new RegExp(`^\\*${MOMENT} \\(w(\\d)\\):\\* frag-(\\d)-(\\d+) x{200} END-(\\d)-(\\d+)\\n$`).exec(f);
      expect(m, f.slice(0, 80)).toBeTruthy();
      expect(m![2]).toBe(m![1]);
      expect(m![4]).toBe(m![1]);
      expect(m![5]).toBe(m![3]);
      seen.add(`${m![1]}-${m![3]}`);
    }
    expect(seen.size).toBe(800);
  });

  it('8 processes racing to write one slug: one note, seven refusals', async () => {
    const root = tempCorpus();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => zkProcess(['--root', root, 'write', 'race', `Racer ${i}`, `body ${i}`])));
    const codes = runs.map((r) => r.code).sort();
    expect(codes).toEqual([0, 1, 1, 1, 1, 1, 1, 1]);
    for (const r of runs.filter((x) => x.code === 1))
      expect(r.stderr).toMatch(
        /^error: a note named "race" exists already: \d{8}-race\.md \(add to it with `merge race`, or pass --unique for a note of its own\)$/,
      );
    expect(mdFiles(root)).toHaveLength(1);
    const winner = runs.findIndex((r) => r.code === 0);
    expect(fs.readFileSync(path.join(root, mdFiles(root)[0]), 'utf8')).toContain(`# Racer ${winner}\n\nbody ${winner}\n`);
  });

  it('a writer killed with SIGKILL leaves no partial note and no blocking lock', async () => {
    const root = tempCorpus();
    const w = await zk(['--root', root, '--json', 'write', 'target', 'Target', 'Start.']);
    const env = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '20' };
    const targetFile = path.join(root, w.json.note.path);
    for (let round = 0; round < 6; round++) {
      const child = execa('node', [WORKER, root, 'mixed', w.json.note.slug, '100000', `k${round}`], { env, reject: false });
      // Killed only once it has merged something (however slow its start), at a different point each round.
      await until(`writer k${round} merging`, () => fs.readFileSync(targetFile, 'utf8').includes(`frag-k${round}-`), 20_000);
      await new Promise((r) => setTimeout(r, 50 + round * 97));
      child.kill('SIGKILL');
      await child;
    }
    // Every note is complete: parseable frontmatter, a title heading, whole fragments only.
    for (const name of mdFiles(root)) {
      const text = fs.readFileSync(path.join(root, name), 'utf8');
      const parsed = parseNoteText(text);
      expect(parsed.hasFrontmatter, name).toBe(true);
      expect(parsed.frontmatter.uuid, name).toBeTruthy();
      if (name !== w.json.note.path) expect(text.trimEnd().endsWith('x'.repeat(200) + ` END-${text.match(/frag-(k\d-\d+)/)![1]}`), name).toBe(true);
    }
    const target = fs.readFileSync(path.join(root, w.json.note.path), 'utf8');
    // The writers got work done before they were killed: the checks below have something to check.
    expect(target.split('\n\n---\n').length - 1).toBeGreaterThan(0);
    expect(mdFiles(root).length).toBeGreaterThan(1);
    for (const f of target.split('\n\n---\n').slice(1))
      expect(f).toMatch(new RegExp(`^\\*${MOMENT} \\(wk\\d\\):\\* frag-(k\\d)-(\\d+) x{200} END-\\1-\\2\\n$`));
    // The next command gets through within the stale timeout even if the killed writer held the lock.
    const started = Date.now();
    const m = await zkProcess(['--root', root, 'merge', w.json.note.slug, 'after the crash'], { env });
    expect(m.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(fs.readFileSync(path.join(root, w.json.note.path), 'utf8').endsWith(':* after the crash\n')).toBe(true);
  });
});
