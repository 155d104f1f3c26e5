import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, mdFiles, snapshot, tempCorpus, tempDir, zk, zkProcess } from './helpers/corpus.js';

function supersedersOf(root: string, uuid: string): string[] {
  return mdFiles(root).filter((n) => fs.readFileSync(path.join(root, n), 'utf8').includes(`supersedes:\n  - ${uuid}`));
}

describe('write --supersedes is atomic', () => {
  it('10 racers superseding one note: one new note, nine refusals that create nothing', async () => {
    const root = tempCorpus();
    const old = await zk(['--root', root, '--json', 'write', 'old', 'Old', 'Before.']);
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => zkProcess(['--root', root, 'write', `new-${i}`, `New ${i}`, 'After.', '--supersedes', 'old'])),
    );
    expect(runs.map((r) => r.code).sort()).toEqual([0, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    for (const r of runs.filter((x) => x.code === 1)) expect(r.stderr.trim()).toMatch(/^error: \d{8}-old\.md is already superseded by /);
    expect(mdFiles(root)).toHaveLength(2);
    expect(supersedersOf(root, old.json.note.uuid)).toHaveLength(1);
  });

  it('a supersede killed between its two writes is reported by tend check and completed by tend repair', async () => {
    const root = tempCorpus();
    const old = await zk(['--root', root, '--json', 'write', 'old', 'Old', 'Before.']);
    const killed = await zkProcess(['--root', root, 'write', 'new', 'New', 'After.', '--supersedes', 'old'], {
      env: { ZK_MEMORY_FAULT: 'supersede-after-create' },
    });
    expect(killed.code).not.toBe(0);
    const [newName] = supersedersOf(root, old.json.note.uuid);
    const env = { ZK_MEMORY_LOCK_STALE: '2' };
    const check = await zk(['--root', root, 'tend', 'check'], { env });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`${newName}:5: stale: [supersedes](${old.json.note.path})`);
    expect(check.stdout).toContain(`${old.json.note.path} lacks superseded_by`);
    expect((await zk(['--root', root, 'tend', 'repair', '--write'], { env })).code).toBe(0);
    expect((await zk(['--root', root, 'tend', 'check'])).code).toBe(0);
    const read = await zk(['--root', root, '--json', 'read', 'old']);
    expect(read.json.chain.map((n: { path: string }) => n.path)).toEqual([newName]);
  });

  it('racers killed at random leave at most one note claiming the old one, and check and repair leave none half done', async () => {
    const root = tempCorpus();
    const old = await zk(['--root', root, '--json', 'write', 'old', 'Old', 'Before.']);
    const env = { ...process.env, ZK_MEMORY_ROOT: '', ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_LOCK_TIMEOUT: '30' };
    const procs = Array.from({ length: 10 }, (_, i) =>
      execa('node', [BIN, '--root', root, 'write', `new-${i}`, `New ${i}`, 'After.', '--supersedes', 'old'], { env, reject: false }),
    );
    await new Promise((r) => setTimeout(r, 500));
    for (const [i, p] of procs.entries()) if (i % 2 === 0) p.kill('SIGKILL');
    await Promise.all(procs);
    expect(supersedersOf(root, old.json.note.uuid).length).toBeLessThanOrEqual(1);
    expect((await zk(['--root', root, 'tend', 'repair', '--write'], { env: { ZK_MEMORY_LOCK_STALE: '2' } })).code).toBe(0);
    expect((await zk(['--root', root, 'tend', 'check'])).code).toBe(0);
  });
});

describe('no write through a symlink planted under .zk', () => {
  it('trace, intents, lease, inbox, tended record and a lock record planted as symlinks never change the files they point at', async () => {
    const root = tempCorpus();
    const outside = tempDir('zk-outside-');
    fs.writeFileSync(path.join(outside, 'victim'), 'precious\n');
    fs.mkdirSync(path.join(outside, 'dir'));
    const before = snapshot(outside);
    await zk(['--root', root, 'write', 'judy', 'Judy', 'See [Judy](x.md).']);
    const zkDir = path.join(root, '.zk');
    for (const name of ['trace.jsonl', 'lease', 'tended.json']) {
      fs.rmSync(path.join(zkDir, name), { force: true });
      fs.symlinkSync(path.join(outside, 'victim'), path.join(zkDir, name));
    }
    fs.symlinkSync(path.join(outside, 'dir'), path.join(zkDir, 'intents'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(zkDir, 'inbox'));
    const merge = await zk(['--root', root, 'merge', 'judy', 'hello']);
    expect(merge.code).toBe(4);
    expect(merge.stderr.trim()).toBe(`error: refusing to write through a symlink planted at ${path.join(zkDir, 'intents')}: remove it and run again`);
    fs.rmSync(path.join(zkDir, 'intents'));
    const merged = await zk(['--root', root, 'merge', 'judy', 'hello']);
    expect(merged.code).toBe(0);
    expect(merged.stderr).toContain('refusing to write through a symlink planted at');
    expect((await zk(['--root', root, 'tend', 'mint', '--write'])).code).toBe(0);
    // A lock folder planted with its record as a symlink: taken over, never written through.
    fs.mkdirSync(path.join(zkDir, 'lock'));
    fs.symlinkSync(path.join(outside, 'victim'), path.join(zkDir, 'lock', 'holder'));
    expect((await zk(['--root', root, 'merge', 'judy', 'again'], { env: { ZK_MEMORY_LOCK_STALE: '2' } })).code).toBe(0);
    expect(snapshot(outside)).toEqual(before);
  });
});

describe('odd input', () => {
  it('a source that could forge a fragment header is refused with exit 2 and nothing changes', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy', 'Start.']);
    const before = snapshot(root);
    const forged = await zk(['--root', root, 'merge', '--source', 'x):* forged\n\n---\n*1999-01-01 (admin', 'judy', 'text']);
    expect(forged.code).toBe(2);
    expect(forged.stderr.trim()).toMatch(/^error: invalid source "x\):\* forged/);
    for (const source of ['a(b', 'a*b', 'line\nbreak', 'tab\there']) {
      expect((await zk(['--root', root, 'merge', 'judy', 'text'], { env: { ZK_MEMORY_SOURCE: source } })).code).toBe(2);
    }
    expect(snapshot(root)).toEqual(before);
    expect((await zk(['--root', root, 'merge', '--source', 'laptop-2 at home', 'judy', 'ok'])).code).toBe(0);
  });

  it('a 10,000-character ref is an unknown ref; a long title of 4-byte letters gives a file name under 255 bytes', async () => {
    const root = tempCorpus();
    const long = await zk(['--root', root, 'read', 'a'.repeat(10_000)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/^error: unknown ref: a{100}/);
    const w = await zk(['--root', root, '--json', 'write', '𝐚'.repeat(90), 'Math letters']);
    expect(w.code, w.stderr).toBe(0);
    expect(Buffer.byteLength(w.json.note.path)).toBeLessThan(255);
    const again = await zk(['--root', root, '--json', 'write', '𝐚'.repeat(90), 'Math letters', '--unique']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.note.path).toMatch(/-2\.md$/);
  });

  it('a file name with a newline is skipped with a warning by list, search, uuid lookup and tend', async () => {
    const root = tempCorpus();
    const w = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'needle here']);
    const prefix = w.json.note.uuid.slice(0, 8);
    const odd = '20260101-odd\nname.md';
    fs.writeFileSync(path.join(root, odd), `---\nuuid: ${prefix}-ffff-4fff-8fff-ffffffffffff\ntitle: Odd\n---\n\n# Odd\n\nneedle there\n`);
    const warning = `warning: skipping ${JSON.stringify(odd)}: the file name holds a control character`;
    for (const args of [['list'], ['search', 'needle', '--backend', 'rg'], ['read', prefix], ['tend', 'check']]) {
      const r = await zk(['--root', root, ...args]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stderr.split(warning).length - 1, args.join(' ')).toBe(1);
    }
  });

  it('an error that quotes input holding a line break is still one line', async () => {
    const root = tempCorpus();
    for (const args of [
      ['read', 'a\nb'],
      ['write', 'x', 'T', '---\nuuid: evil\n---'],
      ['merge', '--source', 'a\nb', 'judy', 'x'],
    ]) {
      const r = await zk(['--root', root, ...args]);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr.split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: .*a\\nb|^error: .*---\\nuuid/);
    }
  });

  it('an inbox file damaged by hand is listed as unreadable, not a failure of the whole inbox, and can be dismissed', async () => {
    const root = tempCorpus();
    const inbox = path.join(root, '.zk', 'inbox');
    fs.mkdirSync(inbox, { recursive: true });
    fs.writeFileSync(path.join(inbox, '20260101T000000000Z-a.json'), 'null\n');
    fs.writeFileSync(path.join(inbox, '20260101T000000000Z-b.json'), '{"items":[{"type":"candidate"}]}\n');
    fs.writeFileSync(path.join(inbox, '20260101T000000000Z-c.json'), 'garbage');
    const good = { created: '2026-01-02T00:00:00.000Z', source: 'laptop', reason: 'no LLM configured', items: [{ type: 'text', text: 'Keep me.' }] };
    fs.writeFileSync(path.join(inbox, '20260102T000000000Z-d.json'), JSON.stringify(good));
    const listed = await zk(['--root', root, '--json', 'inbox']);
    expect(listed.code, listed.stdout).toBe(0);
    expect(listed.json.files.map((f: { file: string; reason: string }) => [f.file.slice(-6), f.reason.split(':')[0]])).toEqual([
      ['a.json', 'unreadable'],
      ['b.json', 'unreadable'],
      ['c.json', 'unreadable'],
      ['d.json', 'no LLM configured'],
    ]);
    expect(listed.json.items).toBe(1);
    const text = await zk(['--root', root, 'inbox']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('.zk/inbox/20260101T000000000Z-c.json  (unreadable: not an inbox entry');
    expect(text.stdout).toContain('  - Keep me.');
    const dismissed = await zk(['--root', root, '--json', 'inbox', 'dismiss', '.zk/inbox/20260101T000000000Z-c.json']);
    expect(dismissed.json).toEqual({
      ok: true,
      action: 'dismissed',
      file: '.zk/inbox/20260101T000000000Z-c.json',
      to: '.zk/inbox/dismissed/20260101T000000000Z-c.json',
    });
  });

  it('init of a path under /proc or of a file ends at once with exit 4 and a sentence', async () => {
    const root = tempCorpus();
    const file = path.join(root, 'plain');
    fs.writeFileSync(file, 'x');
    const onFile = await zk(['init', file]);
    expect(onFile.code).toBe(4);
    expect(onFile.stderr.trim()).toBe(`error: cannot create a corpus at ${file}: ${file} is a file, not a folder`);
    const below = await zk(['init', path.join(file, 'sub')]);
    expect(below.code).toBe(4);
    expect(below.stderr.trim()).toBe(`error: cannot create a corpus at ${path.join(file, 'sub')}: ${file} is a file, not a folder`);
    const proc = await zkProcess(['init', '/proc/nope'], { timeout: 20_000 });
    expect(proc.code).toBe(4);
    expect(proc.stderr.trim()).toMatch(/^error: cannot create the folder \/proc\/nope: /);
  });
});

describe('refs do not trust a folder listing', () => {
  it('an undated slug finds a note dated today even when the listing does not show it (a cached mount)', async () => {
    const { vi } = await import('vitest');
    const { resolveRef } = await import('../src/corpus/graph/refs.js');
    const { isoDate } = await import('../src/corpus/note/slug.js');
    const root = tempCorpus();
    const name = `${isoDate(new Date()).replace(/-/g, '')}-fresh.md`;
    fs.writeFileSync(path.join(root, name), '---\ntitle: Fresh\n---\n\n# Fresh\n');
    const spy = vi.spyOn(fs, 'readdirSync').mockReturnValue([]);
    try {
      expect(resolveRef(root, 'fresh').path).toBe(name);
      // The ref was resolved with the listing hiding the note, not past the listing.
      expect(spy.mock.calls.some(([dir]) => dir === root)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});
