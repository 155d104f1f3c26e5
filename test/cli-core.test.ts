import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNoteText } from '../src/corpus/note/format.js';
import { mdFiles, snapshot, tempCorpus, write, zk, tempDir } from './helpers/corpus.js';
import { headingsAndCells } from './helpers/markdown.js';
import { expectMomentSince, fragmentDates, localDay, MOMENT } from './helpers/moments.js';

const today = () => {
  const d = new Date();
  return `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}`;
};

describe('init and root discovery', () => {
  it('init creates .zk and its .gitignore, and is idempotent', async () => {
    const dir = path.join(tempCorpus(false), 'mem');
    const a = await zk(['init', dir, '--json']);
    expect(a.json).toMatchObject({ ok: true, action: 'created' });
    const gi = fs.readFileSync(path.join(dir, '.zk', '.gitignore'), 'utf8');
    for (const entry of ['index/', 'lock', 'lease', 'inbox/']) expect(gi.split('\n')).toContain(entry);
    const b = await zk(['init', dir, '--json']);
    expect(b.json).toMatchObject({ ok: true, action: 'exists' });
  });

  it('--root works before or after the subcommand, env and upward discovery too', async () => {
    const root = tempCorpus();
    await zk(['write', 'judy', 'Judy', '--root', root]);
    expect((await zk(['--root', root, 'list'])).stdout).toContain('Judy');
    expect((await zk(['list'], { env: { ZK_MEMORY_ROOT: root } })).stdout).toContain('Judy');
    const sub = path.join(root, 'deep', 'er');
    fs.mkdirSync(sub, { recursive: true });
    expect((await zk(['list'], { cwd: sub })).stdout).toContain('Judy');
  });

  it('no root at all is a usage error with the documented message', async () => {
    const lonely = tempDir('zk-noroot-');
    const r = await zk(['list'], { cwd: lonely });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: no corpus root: pass --root DIR or set ZK_MEMORY_ROOT');
    const j = await zk(['list', '--json'], { cwd: lonely });
    expect(j.json).toEqual({ ok: false, error: { code: 'no_root', message: 'no corpus root: pass --root DIR or set ZK_MEMORY_ROOT' }, server: false });
  });

  it('--version and --help exit 0', async () => {
    const v = await zk(['--version']);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const h = await zk(['write', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--unique');
  });
});

describe('write, read, merge, list', () => {
  it('writes a note with the contract frontmatter and reads it back with resolved links', async () => {
    const root = tempCorpus();
    const a = await zk(['--root', root, '--json', 'write', 'Café Paris', 'Paris: the move', '--kind', 'entity_update', '--source', 'chef'], {
      input: 'Judy moved here. See [Judy](x.md).\n',
    });
    expect(a.code).toBe(0);
    expect(a.json.note).toMatchObject({
      slug: `${today()}-cafe-paris`,
      path: `${today()}-cafe-paris.md`,
      title: 'Paris: the move',
      kind: 'entity_update',
      author: 'chef',
      superseded_by: null,
    });
    const text = fs.readFileSync(path.join(root, a.json.note.path), 'utf8');
    expect(text).toMatch(
      /^---\nuuid: [0-9a-f-]{36}\ntitle: 'Paris: the move'\ndate: \d{4}-\d{2}-\d{2}\nauthor: chef\nkind: entity_update\n---\n\n# Paris: the move\n\nJudy moved here\. See \[Judy\]\(x\.md\)\.\n$/,
    );
    const judy = await zk(['--root', root, '--json', 'write', 'x', 'Judy', '--date', '2026-01-02']);
    const x = mdFiles(root).find((f) => f.startsWith('20260102-'))!;
    fs.writeFileSync(path.join(root, a.json.note.path), text.replace('(x.md)', `(${x}) and [gone](nope.md)`));
    const r = await zk(['--root', root, '--json', 'read', a.json.note.uuid.slice(0, 8)]);
    expect(r.json.links).toEqual([
      // A resolved link reports the uuid of the note it leads to, anchored or not.
      { label: 'Judy', target: x, uuid: judy.json.note.uuid, resolved: true, title: 'Judy', line: 11, form: 'inline', path: x },
      { label: 'gone', target: 'nope.md', uuid: null, resolved: false, title: null, line: 11, form: 'inline', path: null },
    ]);
    const back = await zk(['--root', root, '--json', 'read', x]);
    expect(back.json.backlinks).toEqual([{ path: a.json.note.path, title: 'Paris: the move', line: 11 }]);
    const t = await zk(['--root', root, 'read', a.json.note.slug]);
    expect(t.stdout).toContain('nope.md  (missing)');
    // A uuid ref is found through ripgrep, or by reading every note when ripgrep cannot run.
    const noRg = await zk(['--root', root, '--json', 'read', a.json.note.uuid.toUpperCase()], { env: { ZK_MEMORY_RG: '/nonexistent/rg' } });
    expect(noRg.json.note.path).toBe(a.json.note.path);
    const unknown = await zk(['--root', root, 'read', 'zzzzzzzz']);
    expect(unknown.stderr.trim()).toBe('error: unknown ref: zzzzzzzz');
  });

  it('refuses an existing name unless --unique', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy']);
    const before = snapshot(root);
    const again = await zk(['--root', root, 'write', 'judy', 'Judy 2']);
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(
      `error: a note named "judy" exists already: ${today()}-judy.md (add to it with \`merge judy\`, or pass --unique for a note of its own)`,
    );
    expect(snapshot(root)).toEqual(before);
    const u = await zk(['--root', root, '--json', 'write', 'judy', 'Judy 2', '--unique']);
    expect(u.json.note.path).toBe(`${today()}-judy-2.md`);
  });

  it('merge appends the exact fragment and nothing else', async () => {
    const root = tempCorpus();
    const w = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'Lives in London.']);
    const file = path.join(root, w.json.note.path);
    const before = fs.readFileSync(file, 'utf8');
    const started = Date.now();
    const m = await zk(['--root', root, '--json', 'merge', w.json.note.uuid, '-'], { input: '  Moved to Paris.  \n', env: { ZK_MEMORY_SOURCE: 'host1' } });
    expect(m.json).toMatchObject({ ok: true, action: 'merged' });
    // The date line carries the moment of the merge.
    const [first] = fragmentDates(fs.readFileSync(file, 'utf8'));
    expectMomentSince(first, started);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${before}\n\n---\n*${first} (host1):* Moved to Paris.\n`);
    await zk(['--root', root, 'merge', w.json.note.path, 'no source']);
    const second = fragmentDates(fs.readFileSync(file, 'utf8'))[1];
    expectMomentSince(second, started);
    expect(fs.readFileSync(file, 'utf8').endsWith(`\n\n---\n*${second}:* no source\n`)).toBe(true);
  });

  it('merge writes a text that would pull the date line into a heading or table below that line', async () => {
    const root = tempCorpus();
    const w = await zk(['--root', root, '--json', 'write', 'dana', 'Dana', 'Dana welds.']);
    const file = path.join(root, w.json.note.path);
    const before = fs.readFileSync(file, 'utf8');
    const started = Date.now();
    const m = await zk(['--root', root, '--json', 'merge', 'dana', '-', '--source', 'probe-agent'], { input: 'Night shift\n---\nDana leads it.\n' });
    expect(m.json).toMatchObject({ ok: true, action: 'merged' });
    await zk(['--root', root, 'merge', 'dana', '-'], { input: 'Crew | Shift\n--- | ---\nDana | night\n' });
    const after = fs.readFileSync(file, 'utf8');
    const [one, two] = fragmentDates(after);
    expectMomentSince(one, started);
    expectMomentSince(two, started);
    expect(after).toBe(
      `${before}\n\n---\n*${one} (probe-agent):*\n\nNight shift\n---\nDana leads it.\n\n\n---\n*${two}:*\n\nCrew | Shift\n--- | ---\nDana | night\n`,
    );
    expect(headingsAndCells(parseNoteText(after).body)).toEqual([
      'heading: Dana',
      'heading: Night shift',
      'tableCell: Crew',
      'tableCell: Shift',
      'tableCell: Dana',
      'tableCell: night',
    ]);
    const found = await zk(['--root', root, '--json', 'search', 'night shift', '--backend', 'rg']);
    // `updated` is the local day of the last fragment.
    expect(found.json.hits[0]).toMatchObject({ path: w.json.note.path, updated: localDay(two) });
    expect(found.json.hits[0].snippet).toMatch(/^Dana welds\. Night shift Dana leads it\. Crew \| Shift/);
    expect(found.json.hits[0].snippet).not.toMatch(/\*\d{4}-\d{2}-\d{2}|probe-agent/);
  });

  it('lists, reads and merges a hand-written CRLF note without touching its other bytes', async () => {
    const root = tempCorpus();
    const original = '# Hand notes\r\n\r\nWritten by hand.\r\n';
    const file = write(root, 'hand.md', original);
    const l = await zk(['--root', root, '--json', 'list']);
    expect(l.json.notes).toEqual([{ uuid: '', slug: 'hand', path: 'hand.md', title: 'Hand notes', date: '', kind: null, author: null, superseded_by: null }]);
    const r = await zk(['--root', root, '--json', 'read', 'hand.md']);
    expect(r.json.note.body).toBe(original);
    const m = await zk(['--root', root, 'merge', 'hand', 'appended']);
    expect(m.code).toBe(0);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(original)).toBe(true);
    // The fragment takes the note's own line endings, so a CRLF note stays CRLF.
    expect(after.slice(original.length)).toMatch(new RegExp(`^\\r\\n\\r\\n---\\r\\n\\*${MOMENT}:\\* appended\\r\\n$`));
  });

  it('list filters by kind, recency and leaves superseded notes out unless --history', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'a', 'A', '--kind', 'decision']);
    await zk(['--root', root, 'write', 'b', 'B']);
    write(root, 'old.md', '---\nuuid: 11111111-1111-1111-1111-111111111111\ntitle: Old\nsuperseded_by: 22222222-2222-2222-2222-222222222222\n---\n# Old\n');
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, `${today()}-b.md`), future, future);
    expect((await zk(['--root', root, '--json', 'list'])).json.notes.map((n: any) => n.title)).toEqual(['A', 'B']);
    expect((await zk(['--root', root, '--json', 'list', '--history'])).json.notes.map((n: any) => n.title)).toEqual(['A', 'B', 'Old']);
    expect((await zk(['--root', root, '--json', 'list', '--kind', 'decision'])).json.notes.map((n: any) => n.title)).toEqual(['A']);
    expect((await zk(['--root', root, '--json', 'list', '--recent', '1'])).json.notes.map((n: any) => n.title)).toEqual(['B']);
  });
});

describe('bad input: clear message, documented exit code, nothing changed', () => {
  const cases: [string, string[], number, RegExp, string?][] = [
    ['unknown ref', ['read', 'nobody'], 1, /^error: unknown ref: nobody$/],
    [
      'ref leaving the root',
      ['read', '../../etc/passwd'],
      1,
      /^error: invalid ref: "\.\.\/\.\.\/etc\/passwd" \(a ref names a note in the corpus root, not a path, unless it is a note's title\)$/,
    ],
    ['merge into a path', ['merge', '../outside.md', 'x'], 1, /^error: invalid ref: /],
    ['invalid slug', ['write', '???', 'Title'], 1, /^error: invalid slug: "\?\?\?" has no letters or digits$/],
    ['empty title', ['write', 'ok', '  '], 2, /^error: empty title: a note needs a title$/],
    ['unknown kind', ['write', 'ok', 'T', '--kind', 'idea'], 2, /^error: unknown kind: "idea" \(one of concept, entity_update, decision\)$/],
    ['bad date', ['write', 'ok', 'T', '--date', '2026-02-30'], 2, /^error: invalid date: "2026-02-30" \(expected YYYY-MM-DD\)$/],
    ['empty fragment', ['merge', 'base', '   '], 2, /^error: empty fragment: nothing to merge$/],
    ['huge body', ['write', 'big', 'Big', 'x'.repeat(2000)], 2, /^error: body too large: 2000 bytes \(limit 1000; set ZK_MEMORY_MAX_BODY to change it\)$/],
    ['unknown command', ['frobnicate'], 2, /^error: unknown command 'frobnicate'$/],
    // Commander's suggestion stays on the error's line; a line break the user typed is still shown as \n.
    ['unknown command, with a suggestion', ['mrege'], 2, /^error: unknown command 'mrege' \(did you mean merge\?\)$/],
    ['unknown option, with a suggestion', ['list', '--kinds', 'x'], 2, /^error: unknown option '--kinds' \(did you mean --kind\?\)$/],
    ['unknown command with a line break', ['frob\nnicate'], 2, /^error: unknown command 'frob\\nnicate'$/],
    ['bad --recent', ['list', '--recent', 'x'], 2, /^error: --recent takes a whole number >= 1, not "x"$/],
  ];
  it.each(cases)('%s', async (_name, args, code, message) => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'base', 'Base', 'body']);
    const before = snapshot(root);
    const r = await zk(['--root', root, ...args], { env: { ZK_MEMORY_MAX_BODY: '1000' } });
    expect(r.code).toBe(code);
    expect(r.stderr.trim()).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    expect(snapshot(root)).toEqual(before);
    const j = await zk(['--root', root, '--json', ...args], { env: { ZK_MEMORY_MAX_BODY: '1000' } });
    expect(j.code).toBe(code);
    expect(j.json.ok).toBe(false);
    expect(j.json.error.message).toMatch(new RegExp(message.source.replace('^error: ', '^')));
    expect(snapshot(root)).toEqual(before);
  });

  it('malformed frontmatter, binary notes and symlinks to no note are skipped or read with a warning', async () => {
    const root = tempCorpus();
    const outside = tempDir('zk-outside-');
    write(outside, 'secret.md', '# Secret\n');
    write(root, 'broken.md', '---\ntitle: [unclosed\n---\n\n# Broken YAML note\n');
    write(root, 'blob.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0xff]));
    write(root, 'latin1.md', Buffer.from([0x23, 0x20, 0xe9, 0x74, 0xe9, 0x0a]));
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'escape.md'));
    fs.mkdirSync(path.join(root, '.archive'));
    write(root, '.archive/old.md', '# Old\n');
    fs.symlinkSync(path.join('.archive', 'old.md'), path.join(root, 'old.md'));
    fs.symlinkSync('.archive', path.join(root, 'folder.md'));
    fs.symlinkSync('nowhere.md', path.join(root, 'dangling.md'));
    const before = snapshot(root);
    const l = await zk(['--root', root, '--json', 'list']);
    expect(l.code).toBe(0);
    expect(l.json.notes.map((n: any) => n.path)).toEqual(['broken.md']);
    expect(l.json.notes[0].title).toBe('Broken YAML note');
    expect(l.stderr).toContain('warning: broken.md: invalid frontmatter');
    expect(l.stderr).toContain('warning: skipping blob.md: binary file');
    expect(l.stderr).toContain('warning: skipping latin1.md: not valid UTF-8');
    expect(l.stderr).toContain('warning: skipping escape.md: symlink leads outside the corpus');
    expect(l.stderr).toContain('warning: skipping old.md: symlink leads into a folder below the root');
    expect(l.stderr).toContain('warning: skipping folder.md: symlink does not lead to a file');
    expect(l.stderr).toContain('warning: skipping dangling.md: broken symlink');
    const r = await zk(['--root', root, 'read', 'escape']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error: unknown ref: escape');
    const m = await zk(['--root', root, 'merge', 'broken', 'still appendable']);
    expect(m.code).toBe(0);
    const { ['broken.md']: _b, ...rest } = before;
    const { ['broken.md']: _a, ...restAfter } = snapshot(root, { skip: /^\.zk\// });
    expect(restAfter).toEqual(Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('.zk/'))));
  });

  it('an unwritable sidecar is an I/O error (exit 4) that changes nothing', async () => {
    const root = tempCorpus(false);
    write(root, '.zk', 'not a folder');
    const before = snapshot(root);
    const r = await zk(['--root', root, 'write', 'judy', 'Judy']);
    expect(r.code).toBe(4);
    expect(r.stderr.trim()).toMatch(/^error: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(root)).toEqual(before);
  });

  it('a stale lock is taken over; a live one makes the command give up with exit 4', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy']);
    const lock = path.join(root, '.zk', 'lock');
    fs.mkdirSync(lock);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const taken = await zk(['--root', root, 'merge', 'judy', 'after stale lock'], { env: { ZK_MEMORY_LOCK_STALE: '5' } });
    expect(taken.code).toBe(0);
    fs.mkdirSync(lock);
    const before = snapshot(root);
    const busy = await zk(['--root', root, 'merge', 'judy', 'blocked'], { env: { ZK_MEMORY_LOCK_TIMEOUT: '1', ZK_MEMORY_LOCK_STALE: '30' } });
    expect(busy.code).toBe(4);
    expect(busy.stderr.trim()).toBe('error: corpus busy: lock held by a lock folder without a holder record; gave up after 1 s');
    expect(snapshot(root)).toEqual(before);
  });
});
