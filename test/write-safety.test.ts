import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mdFiles, tempCorpus, zk, zkProcess } from './helpers/corpus.js';
import { MOMENT } from './helpers/moments.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

function tempDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-test-'));
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A small tmpfs of its own (needs root); undefined where it cannot be mounted. */
function tmpfs(size: string): string | undefined {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', d], { stdio: 'ignore' });
  } catch {
    fs.rmdirSync(d);
    return undefined;
  }
  cleanups.push(() => {
    execFileSync('umount', [d], { stdio: 'ignore' });
    fs.rmdirSync(d);
  });
  return d;
}

/** Every name under a folder, for proving no temp file or intent was left. */
function allNames(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

const FRAGMENT = new RegExp(`^\\n\\n---\\n\\*${MOMENT}:\\* next\\n$`);

describe('appends are all or nothing', () => {
  it('a writer killed mid-append leaves half a fragment that the next merge removes before appending', async () => {
    const root = tempCorpus();
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const w = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Start.']);
    const file = path.join(root, w.json.note.path);
    const before = fs.readFileSync(file);
    const killed = await zkProcess(['--root', root, 'merge', 'judy', `torn ${'x'.repeat(4000)}`], { env: { ZK_MEMORY_FAULT: 'append-partial' } });
    expect(killed.code).not.toBe(0);
    const torn = fs.readFileSync(file);
    expect(torn.length).toBeGreaterThan(before.length + 1000);
    expect(torn.length).toBeLessThan(before.length + 4000);
    // The killed writer held the lock: it is taken over after the stale window.
    const next = await zk(['--root', root, 'merge', 'judy', 'next'], { env: { ZK_MEMORY_LOCK_STALE: '2' } });
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(`warning: undid an unfinished append to ${w.json.note.path}`);
    const after = fs.readFileSync(file);
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString('utf8')).toMatch(FRAGMENT);
    expect(fs.readdirSync(path.join(root, '.zk', 'intents'))).toEqual([]);
  });

  it('a full disk: a failed create leaves no note and no temp file; a failed append leaves the note byte-identical (exit 4)', async (ctx) => {
    const disk = tmpfs('256k');
    if (!disk) return ctx.skip();
    const root = path.join(disk, 'corpus');
    expect((await zk(['init', root])).code).toBe(0);
    const big = await zk(['--root', root, 'write', 'big', 'Big', '-'], { input: 'y'.repeat(300 * 1024) });
    expect(big.code).toBe(4);
    expect(big.stderr.trim()).toMatch(/^error: no space left on device/);
    expect(mdFiles(root)).toEqual([]);
    expect(allNames(root).filter((n) => n.includes('tmp'))).toEqual([]);

    const w = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Start.']);
    expect(w.code).toBe(0);
    const file = path.join(root, w.json.note.path);
    const before = fs.readFileSync(file);
    // Leave about 16 KB free, then merge 60 KB: with .zk on the same disk, and with .zk elsewhere
    // (so the intent fits and the append itself runs out of room and is rolled back).
    const free = fs.statfsSync(disk).bavail * fs.statfsSync(disk).bsize;
    fs.writeFileSync(path.join(disk, 'filler'), Buffer.alloc(Math.max(0, free - 16 * 1024)));
    const fragment = `big ${'z'.repeat(60 * 1024)}`;
    const m1 = await zk(['--root', root, 'merge', 'judy', fragment]);
    expect(m1.code).toBe(4);
    expect(fs.readFileSync(file).equals(before)).toBe(true);

    const elsewhere = tempDir();
    fs.cpSync(path.join(root, '.zk'), elsewhere, { recursive: true });
    fs.rmSync(path.join(root, '.zk'), { recursive: true });
    fs.symlinkSync(elsewhere, path.join(root, '.zk'));
    const m2 = await zk(['--root', root, 'merge', 'judy', fragment]);
    expect(m2.code).toBe(4);
    expect(m2.stderr.trim()).toBe(`error: no space left on device: the fragment was not added and ${w.json.note.path} is unchanged`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(allNames(elsewhere).filter((n) => n.startsWith('intents/'))).toEqual([]);
    expect(allNames(root).filter((n) => n.includes('tmp'))).toEqual([]);
  });
});

describe('temp files live beside the note', () => {
  it('.zk on another file system: write, merge, supersede and tend write without EXDEV and without .zk/tmp', async () => {
    const root = tempDir();
    const other = tmpfs('8m') ?? tempDir();
    fs.symlinkSync(other, path.join(root, '.zk'));
    expect((await zk(['--root', root, 'write', 'judy', 'Judy', 'Start.'])).code).toBe(0);
    expect((await zk(['--root', root, 'write', 'hub', 'Hub', 'See [Judy](' + mdFiles(root)[0] + ').'])).code).toBe(0);
    expect((await zk(['--root', root, 'merge', 'judy', 'More.'])).code).toBe(0);
    expect((await zk(['--root', root, 'write', 'judy-2', 'Judy now', 'Newer.', '--supersedes', 'judy'])).code).toBe(0);
    const t = await zk(['--root', root, 'tend', 'robustify', '--write']);
    expect(t.code, t.stderr).toBe(0);
    expect(fs.readFileSync(path.join(root, mdFiles(root).find((n) => n.endsWith('-hub.md'))!), 'utf8')).toContain('<!-- uuid: ');
    expect(fs.existsSync(path.join(other, 'tmp'))).toBe(false);
    expect(fs.readdirSync(root).filter((n) => n.startsWith('.zk-tmp'))).toEqual([]);
  });

  it('a temp file in the root is invisible to list, search and tend', async () => {
    const root = tempCorpus();
    cleanups.push(() => fs.rmSync(root, { recursive: true, force: true }));
    expect((await zk(['--root', root, 'write', 'judy', 'Judy', 'Plain.'])).code).toBe(0);
    fs.writeFileSync(path.join(root, `.zk-tmp-1-${'0'.repeat(8)}`), '---\nuuid: x\n---\n# Hidden\n\nneedle [a](missing.md)\n');
    const list = await zk(['--root', root, '--json', 'list']);
    expect(list.json.notes.map((n: { path: string }) => n.path)).toHaveLength(1);
    expect((await zk(['--root', root, 'search', 'needle', '--backend', 'rg'])).code).toBe(1);
    const check = await zk(['--root', root, '--json', 'tend', 'check']);
    expect(check.code).toBe(0);
    expect(check.json.findings).toEqual([]);
  });
});
