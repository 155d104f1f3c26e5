import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { noteText, RFC4122, UUID } from './tend-fixtures.js';

const read = (root: string, name: string) => fs.readFileSync(path.join(root, name), 'utf8');

/** A corpus with something for every mutating action: a renamed target, plain links, notes without uuid. */
function messyCorpus(): string {
  const root = tempCorpus();
  write(root, 'a.md', noteText(UUID.a, 'A', [`[B](old-b.md) <!-- uuid: ${UUID.b} -->`, '[C](c.md)', '[bare](bare.md)']));
  write(root, 'b.md', noteText(UUID.b, 'B', []));
  write(root, 'c.md', noteText(UUID.c, 'C', []));
  write(root, 'bare.md', '# Bare\n\nNo frontmatter.\n');
  return root;
}

describe('dry runs', () => {
  it('mint, repair and robustify without --write change no byte and report what they would do', async () => {
    const root = messyCorpus();
    const before = snapshot(root);
    const repair = await zk(['tend', 'repair', '--root', root, '--json']);
    expect(repair.code).toBe(0);
    expect(repair.json).toMatchObject({ ok: true, write: false, changed: 0, files: [], counts: { stale: 1, broken: 0 } });
    expect(repair.json.findings).toEqual([
      {
        file: 'a.md',
        line: 8,
        label: 'B',
        target: 'old-b.md',
        form: 'inline',
        uuid: UUID.b,
        verdict: 'stale',
        reason: 'uuid now lives in b.md',
        fix: { target: 'b.md' },
      },
    ]);
    const robustify = await zk(['tend', 'robustify', '--root', root]);
    expect(robustify.code).toBe(1); // bare.md has no uuid yet
    expect(robustify.stdout.split('\n')).toEqual([
      `a.md:9: unanchored: [C](c.md) -> uuid ${UUID.c}`,
      'a.md:10: unanchored: [bare](bare.md) (bare.md has no uuid; tend mint gives it one)',
      'robustify: would change 1 link (2 unanchored); dry run, nothing written: add --write',
    ]);
    const mint = await zk(['tend', 'mint', '--root', root, '--json']);
    expect(mint.code).toBe(0);
    expect(mint.json).toMatchObject({ write: false, changed: 0, counts: { no_uuid: 1, broken: 0 } });
    expect(mint.json.findings).toMatchObject([{ file: 'bare.md', line: 1, label: 'Bare', target: 'bare.md', uuid: null, verdict: 'no_uuid' }]);
    expect(snapshot(root)).toEqual(before);
  });
});

describe('tend repair --write', () => {
  it('rewrites only the stale targets, keeping labels, anchors, CRLF and a BOM', async () => {
    const root = tempCorpus();
    const original = `\uFEFF${noteText(UUID.a, 'A', [
      `See [the B note](old-b.md) <!-- uuid: ${UUID.b} --> and [its notes](old-b.md#deploy-notes)<!--uuid:${UUID.b}-->.`,
      `Fine: [C](c.md) <!-- uuid: ${UUID.c} -->, [missing](nowhere.md).`,
    ])}`.replace(/\n/g, '\r\n');
    write(root, 'a.md', original);
    write(root, 'my b (draft).md', noteText(UUID.b, 'B', ['## Deploy notes']));
    write(root, 'c.md', noteText(UUID.c, 'C', []));
    const r = await zk(['tend', 'repair', '--write', '--root', root, '--json']);
    expect(r.code).toBe(1); // the broken link is left for a person
    expect(r.json).toMatchObject({ write: true, changed: 2, files: ['a.md'], counts: { stale: 2, broken: 1 } });
    const b = 'my%20b%20%28draft%29.md';
    expect(fs.readFileSync(path.join(root, 'a.md'))).toEqual(
      Buffer.from(original.replace(`(old-b.md) <!--`, `(${b}) <!--`).replace('(old-b.md#deploy-notes)', `(${b}#deploy-notes)`)),
    );
    const check = await zk(['tend', 'check', '--root', root, '--json']);
    expect(check.json.counts).toEqual({ ok: 3, stale: 0, broken: 1, unanchored: 0 });
    const events = read(root, '.zk/trace.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events).toMatchObject([{ event: 'tend', action: 'repair', files: ['a.md'], changed: 2 }]);
  });

  it('points links to an archived, superseded note at its successor, anchor included', async () => {
    const root = tempCorpus();
    write(root, 'a.md', noteText(UUID.a, 'A', [`[old](old.md) <!-- uuid: ${UUID.old} -->`, '[old plain](old.md#gone-heading)']));
    write(root, 'next.md', noteText(UUID.next, 'Next', []));
    fs.mkdirSync(path.join(root, '.archive'));
    write(root, '.archive/old.md', noteText(UUID.old, 'Old', ['## Gone heading'], [`superseded_by: ${UUID.next}`]));
    const r = await zk(['tend', 'repair', '--write', '--root', root]);
    expect(r.code).toBe(0);
    expect(read(root, 'a.md')).toBe(noteText(UUID.a, 'A', [`[old](next.md) <!-- uuid: ${UUID.next} -->`, `[old plain](next.md) <!-- uuid: ${UUID.next} -->`]));
    expect((await zk(['tend', 'check', '--root', root])).code).toBe(0);
  });

  it('is refused with exit 4 while another caretaker holds the lease; a dry run still works', async () => {
    const root = messyCorpus();
    const expires = new Date(Date.now() + 600_000).toISOString();
    const lease = { host: os.hostname(), pid: process.pid, purpose: 'gardener', since: new Date().toISOString(), expires };
    write(root, '.zk/lease', JSON.stringify(lease));
    const before = snapshot(root);
    const r = await zk(['tend', 'repair', '--write', '--root', root]);
    expect([r.code, r.stderr]).toEqual([4, `error: caretaker lease held by ${os.hostname()} pid ${process.pid} (gardener) until ${expires}`]);
    expect(snapshot(root)).toEqual(before);
    expect((await zk(['tend', 'repair', '--root', root])).code).toBe(0);
    fs.rmSync(path.join(root, '.zk/lease'));
    expect((await zk(['tend', 'repair', '--write', '--root', root])).code).toBe(0);
    expect(fs.existsSync(path.join(root, '.zk/lease'))).toBe(false);
  });
});

describe('tend robustify --write', () => {
  it('adds the uuid anchor after plain links, and nothing else', async () => {
    const root = messyCorpus();
    const r = await zk(['tend', 'robustify', '--write', '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ changed: 1, files: ['a.md'], counts: { unanchored: 2 } });
    expect(read(root, 'a.md')).toBe(noteText(UUID.a, 'A', [`[B](old-b.md) <!-- uuid: ${UUID.b} -->`, `[C](c.md) <!-- uuid: ${UUID.c} -->`, '[bare](bare.md)']));
  });
});

describe('tend mint --write', () => {
  it('adds a uuid to every note without one, keeping every other byte', async () => {
    const root = tempCorpus();
    const notes: Record<string, string> = {
      'plain.md': '# Plain\n\nBody.\n',
      'crlf.md': '# Windows\r\n\r\nBody.\r\n',
      'bom.md': '\uFEFF# With BOM\n',
      'keys.md': "---\ntitle: 'Keys: kept'\ntags: [x, y]   # a comment\n---\n\n# Keys\n",
      'empty-uuid.md': '---\ntitle: Empty\nuuid:\n---\nBody.\n',
      'has.md': noteText(UUID.a, 'Has', []),
      'broken.md': '---\ntitle: [unclosed\n---\n# Broken\n',
      'unclosed.md': '---\ntitle: nothing closes this\n# Heading\n',
    };
    for (const [name, text] of Object.entries(notes)) write(root, name, text);
    const r = await zk(['tend', 'mint', '--write', '--root', root, '--json']);
    expect(r.code).toBe(1); // two notes cannot be minted safely
    const uuids: Record<string, string> = {};
    for (const f of r.json.findings) if (f.fix) uuids[f.file] = f.fix.uuid;
    expect(Object.keys(uuids).sort()).toEqual(['bom.md', 'crlf.md', 'empty-uuid.md', 'keys.md', 'plain.md']);
    for (const u of Object.values(uuids)) expect(u).toMatch(RFC4122);
    expect(new Set(Object.values(uuids)).size).toBe(5);
    expect(read(root, 'plain.md')).toBe(`---\nuuid: ${uuids['plain.md']}\n---\n# Plain\n\nBody.\n`);
    expect(read(root, 'crlf.md')).toBe(`---\r\nuuid: ${uuids['crlf.md']}\r\n---\r\n# Windows\r\n\r\nBody.\r\n`);
    expect(read(root, 'bom.md')).toBe(`\uFEFF---\nuuid: ${uuids['bom.md']}\n---\n# With BOM\n`);
    expect(read(root, 'keys.md')).toBe(`---\nuuid: ${uuids['keys.md']}\ntitle: 'Keys: kept'\ntags: [x, y]   # a comment\n---\n\n# Keys\n`);
    expect(read(root, 'empty-uuid.md')).toBe(`---\ntitle: Empty\nuuid: ${uuids['empty-uuid.md']}\n---\nBody.\n`);
    for (const name of ['has.md', 'broken.md', 'unclosed.md']) expect(read(root, name)).toBe(notes[name]);
    const left = r.json.findings.filter((f: { verdict: string }) => f.verdict === 'broken');
    expect(left.map((f: { file: string; reason: string }) => [f.file, f.reason.split(':')[0]])).toEqual([
      ['broken.md', 'invalid frontmatter'],
      ['unclosed.md', 'frontmatter is not closed by a --- line'],
    ]);
    expect(r.json.findings.find((f: { file: string }) => f.file === 'keys.md').line).toBe(2);
    const again = await zk(['tend', 'mint', '--root', root, '--json']);
    expect(again.json.counts).toEqual({ no_uuid: 0, broken: 2 });
  });
});
