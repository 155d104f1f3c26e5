import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdFiles, tempCorpus, tempDir, zk, zkProcess } from './helpers/corpus.js';
import { MOMENT } from './helpers/moments.js';

// What a new user meets in the first minutes: words instead of silence, a corpus made whole on
// first write, and input read the way the help says.

describe('never silence', () => {
  it('a search with no hits says so, with a hint; --json stays {ok: true, hits: []} with exit 1', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints lake sunrises.']);
    const r = await zk(['--root', root, 'search', 'zebra', '--backend', 'rg']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('no notes match "zebra" (try fewer or other words, or --backend fts)');
    const j = await zk(['--root', root, '--json', 'search', 'zebra', '--backend', 'rg']);
    expect(j.code).toBe(1);
    expect(j.json).toMatchObject({ ok: true, hits: [] });
  });

  it('an empty corpus says so for list and split-candidates', async () => {
    const root = tempCorpus();
    const l = await zk(['--root', root, 'list']);
    expect([l.code, l.stdout]).toEqual([0, 'no notes here yet (write one: zk-memory write SLUG TITLE BODY)']);
    const s = await zk(['--root', root, 'split-candidates']);
    expect([s.code, s.stdout]).toEqual([1, 'no notes to split: the corpus has no notes yet']);
  });
});

describe('a corpus is whole from its first write', () => {
  it('a write into a folder without .zk/ makes .zk/ with a .gitignore that covers ingest state too', async () => {
    const root = tempDir();
    expect((await zk(['--root', root, 'write', 'judy', 'Judy', 'Paints.'])).code).toBe(0);
    const gi = fs.readFileSync(path.join(root, '.zk', '.gitignore'), 'utf8').split('\n');
    for (const entry of ['index/', 'lock', 'inbox/', 'ingest/', 'intents/', 'tended.json', 'tokens.json', 'capture/', 'hooks.log'])
      expect(gi, entry).toContain(entry);
    expect(fs.existsSync(path.join(root, '.zk', 'tmp'))).toBe(false);
  });

  it('init of an existing corpus brings an old .gitignore up to date and keeps what the user added', async () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, '.zk', '.gitignore'), 'index/\nmy-own-entry\n');
    const r = await zk(['init', root, '--json']);
    expect(r.json).toMatchObject({ ok: true, action: 'exists' });
    const gi = fs.readFileSync(path.join(root, '.zk', '.gitignore'), 'utf8').split('\n');
    expect(gi).toContain('my-own-entry');
    expect(gi).toContain('ingest/');
    expect(gi.filter((l) => l === 'index/')).toHaveLength(1);
  });
});

describe('input as the help says', () => {
  it('search - reads the query from stdin', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints lake sunrises.']);
    const r = await zk(['--root', root, '--json', 'search', '-', '--backend', 'rg'], { input: 'lake sunrise\n' });
    expect(r.json).toMatchObject({ query: 'lake sunrise', hits: [{ title: 'Judy' }] });
  });

  it('retain with a piped conversation reads it as a transcript (no LLM: kept in the inbox, exit 3)', async () => {
    const root = tempCorpus();
    const r = await zk(['--root', root, '--json', 'retain'], { input: 'user: my cat is called Tofu\nassistant: nice' });
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'llm_unconfigured' }, spooled: expect.stringMatching(/^\.zk\/inbox\//) });
  });

  it('bytes that are not UTF-8 piped into merge are refused, the note unchanged', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'judy', 'Judy', 'Paints.']);
    const before = fs.readFileSync(path.join(root, mdFiles(root)[0]));
    const r = await zkProcess(['--root', root, 'merge', 'judy', '-'], { input: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) as unknown as string });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: stdin is not valid UTF-8: convert it first (for example with iconv)');
    expect(fs.readFileSync(path.join(root, mdFiles(root)[0]))).toEqual(before);
  });

  it('--version --json prints JSON', async () => {
    const r = await zk(['--version', '--json']);
    expect(r.json).toMatchObject({ ok: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  it('index --embed-model without an endpoint is a usage error, not silently ignored', async () => {
    const root = tempCorpus();
    const r = await zk(['--root', root, 'index', '--rebuild', '--embed-model', 'x'], { env: { ZK_MEMORY_EMBED_BASE: '', ZK_MEMORY_EMBED_MODEL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: --embed-model needs a whole embedding endpoint/);
  });

  it('a refused supersede names the successor by file name and title', async () => {
    const root = tempCorpus();
    const a = await zk(['--root', root, '--json', 'write', 'a', 'A', 'x']);
    const b = await zk(['--root', root, '--json', 'write', 'b', 'B', 'y']);
    await zk(['--root', root, '--json', 'write', 'c', 'C', 'z']);
    await zk(['--root', root, 'supersede', 'a', '--by', 'b']);
    const r = await zk(['--root', root, 'supersede', 'a', '--by', 'c']);
    expect(r.stderr).toBe(
      `error: ${a.json.note.path} is already superseded by ${b.json.note.path} (B); supersede the current note instead: \`zk-memory supersede ${b.json.note.path} --by NEW\``,
    );
  });
});

describe('read and tend check agree', () => {
  it('a link to a heading its note lacks is unresolved in read, as tend check calls it broken; the #fragment stays in the target', async () => {
    const root = tempCorpus();
    const t = await zk(['--root', root, '--json', 'write', 'target', 'Target', '## Real heading']);
    const p = t.json.note.path;
    await zk(['--root', root, 'write', 'src', 'Src', `See [x](${p}#nope) and [y](${p}#real-heading).`]);
    const r = await zk(['--root', root, '--json', 'read', 'src']);
    expect(r.json.links.map((l: any) => [l.target, l.resolved])).toEqual([
      [`${p}#nope`, false],
      [`${p}#real-heading`, true],
    ]);
    const check = await zk(['--root', root, '--json', 'tend', 'check']);
    expect(check.json.findings.filter((f: any) => f.verdict === 'broken').map((f: any) => f.target)).toEqual([`${p}#nope`]);
  });
});

describe('edges a careful user meets', () => {
  it('a merge into a CRLF note keeps its CRLF line endings', async () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, 'crlf.md'), '---\r\ntitle: Crlf\r\n---\r\n\r\n# Crlf\r\n\r\nOne.\r\n');
    expect((await zk(['--root', root, 'merge', 'crlf.md', 'Two.\nThree.'])).code).toBe(0);
    const text = fs.readFileSync(path.join(root, 'crlf.md'), 'utf8');
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    expect(text).toMatch(new RegExp(`\\r\\n\\r\\n---\\r\\n\\*${MOMENT}:\\* Two\\.\\r\\nThree\\.\\r\\n$`));
  });

  it('a merge into a superseded note says the fragment went to the older note', async () => {
    const root = tempCorpus();
    const old = await zk(['--root', root, '--json', 'write', 'judy', 'Judy', 'London.']);
    await zk(['--root', root, 'write', 'judy-paris', 'Judy in Paris', 'Paris.', '--supersedes', 'judy']);
    const m = await zk(['--root', root, 'merge', old.json.note.path, 'A note on history.']);
    expect(m.code).toBe(0);
    expect(m.stderr).toMatch(new RegExp(`^warning: ${old.json.note.path} is superseded \\(by [0-9a-f-]+\\): the fragment went to this older note$`));
  });

  it('ingest reads no symlinked file that leads outside the sources', async () => {
    const root = tempCorpus();
    const src = tempDir('zk-src-');
    const outside = tempDir('zk-outside-');
    fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\ndo not read\n');
    fs.writeFileSync(path.join(src, 'guide.md'), '# Guide\n\nRead me.\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(src, 'pw.md'));
    const r = await zk(['--root', root, '--json', 'ingest', 'start', '--from', src]);
    expect(r.json.documents.map((d: any) => d.path)).toEqual(['guide.md']);
    expect(r.json.unsupported).toEqual([{ path: 'pw.md', reason: 'symlink leads outside the sources (not followed)' }]);
  });

  it('inbox dismiss takes files only', async () => {
    const root = tempCorpus();
    fs.mkdirSync(path.join(root, '.zk', 'inbox', 'dir.json'), { recursive: true });
    const r = await zk(['--root', root, 'inbox', 'dismiss', 'dir.json']);
    expect([r.code, r.stderr]).toEqual([1, 'error: no such inbox file: dir.json']);
    expect(fs.existsSync(path.join(root, '.zk', 'inbox', 'dir.json'))).toBe(true);
  });
});

describe('a supersession whose successor was archived by hand', () => {
  it('tend check reports the note left with no current successor; repair makes it current, or follows an archived successor to the live one', async () => {
    const root = tempCorpus();
    const toArchive = (name: string) => {
      fs.mkdirSync(path.join(root, '.archive'), { recursive: true });
      fs.renameSync(path.join(root, name), path.join(root, '.archive', name));
    };
    const judy = await zk(['--root', root, '--json', 'write', 'judy', 'Judy in London', 'London.']);
    const paris = await zk(['--root', root, '--json', 'write', 'judy-paris', 'Judy in Paris', 'Paris.', '--supersedes', 'judy']);
    toArchive(paris.json.note.path);
    const check = await zk(['--root', root, '--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.findings).toContainEqual(
      expect.objectContaining({
        file: judy.json.note.path,
        label: 'superseded_by',
        verdict: 'stale',
        fix: { current: true },
        reason: expect.stringMatching(/was archived as \.archive\/\d{8}-judy-paris\.md: nothing current replaces this note; repair makes it current again$/),
      }),
    );

    const a = await zk(['--root', root, '--json', 'write', 'kim', 'Kim one', '1']);
    const two = await zk(['--root', root, '--json', 'write', 'kim-two', 'Kim two', '2', '--supersedes', 'kim']);
    const three = await zk(['--root', root, '--json', 'write', 'kim-three', 'Kim three', '3', '--supersedes', 'kim-two']);
    toArchive(two.json.note.path);
    const stale = await zk(['--root', root, '--json', 'tend', 'check']);
    expect(stale.json.findings).toContainEqual(expect.objectContaining({ file: a.json.note.path, label: 'superseded_by', verdict: 'stale' }));
    expect((await zk(['--root', root, 'tend', 'repair', '--write'])).code).toBe(0);
    expect((await zk(['--root', root, '--json', 'read', judy.json.note.path])).json.note.superseded_by).toBe(null);
    const read = await zk(['--root', root, '--json', 'read', a.json.note.path]);
    expect(read.json.note.superseded_by).toBe(three.json.note.uuid);
    expect((await zk(['--root', root, 'tend', 'check'])).code).toBe(0);
  });
});
