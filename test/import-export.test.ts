import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, mdFiles, snapshot, tempCorpus, tempDir, zk } from './helpers/corpus.js';
import { until } from './helpers/wait.js';

// Import and export (docs/import-export.md): each format read from fixtures written here in the
// shape its source documents, and the rules every import keeps, checked on the files afterwards.

const ENV = { ZK_MEMORY_SOURCE: '' };

function fileIn(dir: string, name: string, text: string): string {
  const p = path.join(dir, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Every file of a corpus's notes and archive, by relative path, with its bytes (the tool's own .zk left out). */
function noteBytes(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of mdFiles(root)) out[f] = fs.readFileSync(path.join(root, f)).toString('base64');
  const archive = path.join(root, '.archive');
  if (fs.existsSync(archive)) for (const f of mdFiles(archive)) out[`.archive/${f}`] = fs.readFileSync(path.join(archive, f)).toString('base64');
  return out;
}

function read(root: string, name: string): string {
  return fs.readFileSync(path.join(root, name), 'utf8');
}

/** The note made of an imported item: the one file whose imported_from id is `id`. */
function notesFrom(root: string, id: string): string[] {
  return mdFiles(root).filter((f) => read(root, f).includes(`\n  id: ${id}\n`));
}

const MEMORY = jsonl([
  { type: 'entity', name: 'Alice', entityType: 'person', observations: ['Works at Acme', 'Likes tea'] },
  { type: 'relation', from: 'Alice', to: 'Bob', relationType: 'manages' },
  { type: 'relation', from: 'Alice', to: 'Acme', relationType: 'works at' },
  { type: 'entity', name: 'Bob', entityType: 'person', observations: ['Plays the cello'] },
  { type: 'entity', name: 'Acme', entityType: 'organization', observations: [] },
]);

describe('import memory-json', () => {
  it('makes one note per entity, with relations (to entities later in the file) as labelled links', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'memory.jsonl', MEMORY);
    const r = await zk(['import', 'memory-json', src, '--json', '--root', root], { env: ENV });
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, created: 3, merged: 0, queued: 0, skipped: 0, failed: [] });
    expect(mdFiles(root)).toHaveLength(3);
    const [alice] = notesFrom(root, 'Alice');
    const [bob] = notesFrom(root, 'Bob');
    const text = read(root, alice);
    expect(text).toMatch(
      /^---\nuuid: [0-9a-f-]{36}\ntitle: Alice\ndate: \d{4}-\d{2}-\d{2}\nimported_from:\n  format: memory-json\n  id: Alice\nentity_type: person\n---\n\n# Alice\n\nWorks at Acme\n\nLikes tea\n\n## Relations\n\n/,
    );
    const bobUuid = /uuid: (\S+)/.exec(read(root, bob))![1];
    expect(text).toContain(`- [manages](${bob}) <!-- uuid: ${bobUuid} -->`);
    // The links resolve as the tool reads them.
    const linked = await zk(['read', alice, '--json', '--root', root]);
    expect(linked.json.links.map((l: any) => [l.label, l.path])).toEqual([
      ['manages', bob],
      ['works at', notesFrom(root, 'Acme')[0]],
    ]);
  });

  it('a relation type with a line break or brackets stays one link line', async () => {
    const root = tempCorpus();
    const src = fileIn(
      tempDir(),
      'memory.jsonl',
      jsonl([
        { type: 'entity', name: 'A', entityType: 't', observations: [] },
        { type: 'entity', name: 'B', entityType: 't', observations: [] },
        { type: 'relation', from: 'A', to: 'B', relationType: 'knows\n# not a heading [really]' },
      ]),
    );
    await zk(['import', 'memory-json', src, '--root', root], { env: ENV });
    const a = notesFrom(root, 'A')[0];
    const links = (await zk(['read', a, '--json', '--root', root])).json.links;
    expect(links.map((l: any) => [l.label, l.path])).toEqual([['knows # not a heading \\[really\\]', notesFrom(root, 'B')[0]]]);
  });

  it('re-importing skips every item; a changed entity gets what it adds as a fragment, nothing overwritten', async () => {
    const root = tempCorpus();
    const dir = tempDir();
    const src = fileIn(dir, 'memory.jsonl', MEMORY);
    await zk(['import', 'memory-json', src, '--root', root], { env: ENV });
    const before = snapshot(root, { skip: /^\.zk/ });
    const again = await zk(['import', 'memory-json', src, '--json', '--root', root], { env: ENV });
    expect(again.json).toMatchObject({ created: 0, merged: 0, skipped: 3, failed: [] });
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);

    const [alice] = notesFrom(root, 'Alice');
    const original = read(root, alice);
    fileIn(dir, 'memory.jsonl', MEMORY.replace('"Likes tea"', '"Likes tea","Moved to Paris"'));
    const changed = await zk(['import', 'memory-json', src, '--json', '--root', root], { env: ENV });
    expect(changed.json).toMatchObject({ created: 0, merged: 1, skipped: 2 });
    const after = read(root, alice);
    expect(after.startsWith(original)).toBe(true);
    expect(after.slice(original.length)).toMatch(/^\n\n---\n\*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z \(memory-json\):\* Moved to Paris\n$/);
    expect(mdFiles(root)).toHaveLength(3);
  });

  it('--dry-run reports what would happen and writes nothing', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'memory.jsonl', MEMORY);
    const before = snapshot(root);
    const r = await zk(['import', 'memory-json', src, '--dry-run', '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ ok: true, dry_run: true, created: 3 });
    expect(snapshot(root)).toEqual(before);
  });

  it('bad lines fail one by one, naming the file and line; the rest is imported', async () => {
    const root = tempCorpus();
    const src = fileIn(
      tempDir(),
      'memory.jsonl',
      [
        JSON.stringify({ type: 'entity', name: 'Carol', entityType: 'person', observations: ['ok'] }),
        '{"type":"entity","name":"Trunc',
        JSON.stringify({ type: 'entity', entityType: 'person', observations: ['no name'] }),
        JSON.stringify({ type: 'relation', from: 'Carol', to: 'Nobody', relationType: 'knows' }),
        JSON.stringify({ type: 'entity', name: 'Carol', entityType: 'person', observations: ['twice'] }),
      ].join('\n'),
    );
    const r = await zk(['import', 'memory-json', src, '--root', root], { env: ENV });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^error: memory\.jsonl:2: not JSON/),
      'error: memory.jsonl:3: an entity with no name',
      expect.stringMatching(/^error: memory\.jsonl:5: entity "Carol" appears twice/),
      'error: memory.jsonl:4: relation "knows" names an entity the file does not have: "Nobody"',
    ]);
    expect(mdFiles(root)).toHaveLength(1);
    expect(read(root, mdFiles(root)[0])).not.toContain('Relations');
  });

  it('input it cannot read at all is one error line and exit 2, with nothing written', async () => {
    const root = tempCorpus();
    const dir = tempDir();
    const before = snapshot(root);
    const notFormat = await zk(['import', 'memory-json', fileIn(dir, 'notes.txt', 'hello\nworld\n'), '--root', root]);
    expect(notFormat.code).toBe(2);
    expect(notFormat.stderr).toMatch(/^error: notes\.txt:1: not JSON .*nothing could be read \(and 1 more\)$/);
    const missing = await zk(['import', 'memory-json', path.join(dir, 'nope.jsonl'), '--root', root]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^error: .*nope\.jsonl: no such file$/);
    const unknown = await zk(['import', 'evernote', dir, '--root', root]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^error: unknown import format "evernote" \(one of: jsonl, memory-json, mem0, claude-code, codex, obsidian, basic-memory, chatgpt, claude\)$/,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('an import killed midway resumes where it stopped, doubling nothing', async () => {
    const root = tempCorpus();
    const n = 1500;
    const rows = Array.from({ length: n }, (_, i) => ({ type: 'entity', name: `Entity ${i}`, entityType: 'thing', observations: [`fact ${i}`] }));
    const src = fileIn(tempDir(), 'memory.jsonl', jsonl(rows));
    const child = execa('node', [BIN, 'import', 'memory-json', src, '--root', root], { env: { ...process.env, ...ENV, ZK_MEMORY_ROOT: '' }, reject: false });
    await until(
      'the import writing',
      () => mdFiles(root).length >= 50,
      60_000,
      () => (child.exitCode !== null ? `exited ${child.exitCode}` : undefined),
    );
    child.kill('SIGKILL');
    await child;
    const partial = mdFiles(root).length;
    expect(partial).toBeLessThan(n);
    // Each note there is whole: a kill leaves at most a hidden temp file, never a note (docs/concurrency.md).
    for (const f of mdFiles(root)) expect(read(root, f)).toMatch(/\n# (Entity \d+)\n\nfact \d+\n$/);
    const r = await zk(['import', 'memory-json', src, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: n - partial, skipped: partial, failed: [] });
    const files = mdFiles(root);
    expect(files).toHaveLength(n);
    const ids = files.map((f) => /\n {2}id: (.*)\n/.exec(read(root, f))![1]);
    expect(new Set(ids).size).toBe(n);
    for (const f of files) expect(read(root, f)).toMatch(/\n# (Entity \d+)\n\nfact \d+\n$/);
  }, 120_000);
});

describe('import mem0', () => {
  it('makes one note per memory, dated by its creation, with user and agent ids; deleted ones left out', async () => {
    const root = tempCorpus();
    const dir = tempDir();
    const src = fileIn(
      dir,
      'mem0.json',
      JSON.stringify({
        results: [
          {
            id: 'm-1',
            memory: 'Prefers vegetarian food',
            hash: 'h1',
            metadata: { category: 'food' },
            created_at: '2025-03-04T10:11:12-08:00',
            updated_at: null,
            user_id: 'alice',
            agent_id: 'chef-bot',
          },
          { id: 'm-2', memory: 'Is allergic to peanuts', created_at: '2025-03-05T00:00:00Z', user_id: 'alice' },
          { id: 'm-3', created_at: '2025-03-05T00:00:00Z' },
        ],
      }),
    );
    const r = await zk(['import', 'mem0', src, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 2, failed: [{ item: 'mem0.json memory #3', reason: 'memory m-3: no text ("memory" or "content")' }] });
    expect(mdFiles(root)).toEqual(['20250304-prefers-vegetarian-food.md', '20250305-is-allergic-to-peanuts.md']);
    expect(read(root, '20250304-prefers-vegetarian-food.md')).toMatch(
      /\ntitle: Prefers vegetarian food\ndate: 2025-03-04\nimported_from:\n {2}format: mem0\n {2}id: m-1\nuser_id: alice\nagent_id: chef-bot\ncreated_at: 2025-03-04T10:11:12-08:00\nmetadata:\n {2}category: food\n---\n\n# Prefers vegetarian food\n\nPrefers vegetarian food\n$/,
    );
    const again = await zk(['import', 'mem0', src, '--json', '--root', root], { env: ENV });
    expect(again.json).toMatchObject({ created: 0, skipped: 2 });
  });

  it("reads OpenMemory's backup (memories.json), naming users and apps", async () => {
    const root = tempCorpus();
    const src = fileIn(
      tempDir(),
      'memories.json',
      JSON.stringify(
        {
          user: { id: 'u-uuid', user_id: 'dana', name: null },
          apps: [{ id: 'a-uuid', name: 'cursor' }],
          memories: [
            {
              id: 'x1',
              user_id: 'u-uuid',
              app_id: 'a-uuid',
              content: 'Uses Neovim',
              metadata: {},
              state: 'active',
              created_at: '2025-06-01T08:00:00+00:00',
              updated_at: '2025-06-01T08:00:00+00:00',
              category_ids: [],
            },
            { id: 'x2', user_id: 'u-uuid', app_id: 'a-uuid', content: 'Old fact', metadata: {}, state: 'deleted', created_at: '2025-06-01T08:00:00+00:00' },
          ],
        },
        null,
        2,
      ),
    );
    const r = await zk(['import', 'mem0', src, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 1, failed: [] });
    expect(read(root, '20250601-uses-neovim.md')).toContain('\nuser_id: dana\napp: cursor\n');
  });

  it('truncated JSON is refused naming the file and line', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'mem0.json', '{\n  "results": [\n    {"id": "m-1", "memory": "x"');
    const r = await zk(['import', 'mem0', src, '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: mem0\.json:3: not JSON \(/);
    expect(mdFiles(root)).toEqual([]);
  });
});

/** A corpus with every feature a note file can have: fragments, CRLF, a BOM, a supersession chain, archived notes, unicode names, a note without frontmatter. */
async function featureCorpus(): Promise<string> {
  const root = tempCorpus();
  const run = async (...args: string[]) => {
    const r = await zk([...args, '--root', root], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  await run('write', 'judy', 'Judy', 'Judy paints lake sunrises.', '--date', '2026-11-30', '--source', 'phone');
  await run('merge', 'judy', 'Moved to Paris.', '--source', 'laptop');
  await run('merge', 'judy', 'Studio\n------\nShe rents one in Montmartre.');
  await run('write', 'plan', 'Plan A', 'First plan.', '--date', '2026-11-01', '--kind', 'decision');
  await run('write', 'plan-b', 'Plan B', 'Second plan, see [Judy](20261130-judy.md).', '--date', '2026-11-02', '--supersedes', 'plan');
  await run('write', 'plan-c', 'Plan C', 'Third plan.', '--date', '2026-11-03', '--supersedes', 'plan-b');
  await run('write', 'tokyo', '東京 2026', 'Trip notes, [[Judy]] too.', '--date', '2026-10-10');
  await run('write', 'cafe', 'Café Crème', 'Where we meet.', '--date', '2026-10-11');
  await run('write', 'gone', 'Gone', 'Retired.', '--date', '2026-10-12');
  await run('archive', 'gone');
  fs.writeFileSync(
    path.join(root, '20261001-crlf.md'),
    '---\r\nuuid: 11111111-2222-4333-8444-555555555555\r\ntitle: Windows\r\ndate: 2026-10-01\r\n---\r\n\r\n# Windows\r\n\r\nWritten on Windows.\r\n',
  );
  await run('merge', '20261001-crlf', 'Still CRLF.');
  fs.writeFileSync(path.join(root, 'hand.md'), '\uFEFF# By hand\n\nNo frontmatter at all, links to [[Plan C]].\n');
  fs.writeFileSync(
    path.join(root, 'Ærø notes.md'),
    '---\nuuid: 9d6a3c2e-0000-4000-8000-00000000a0e0\ntitle: Ærø\ncustom: [1, 2]\n# a comment\n---\n\n# Ærø\n\nIsland.',
  );
  return root;
}

describe('export and import jsonl', () => {
  it('export then import into an empty corpus gives byte-identical note files (every feature)', async () => {
    const root = await featureCorpus();
    const out = path.join(tempDir(), 'corpus.jsonl');
    const ex = await zk(['export', 'jsonl', '--out', out, '--json', '--root', root]);
    expect(ex.json).toMatchObject({ ok: true, format: 'jsonl', lines: 10, out });
    const rows = fs
      .readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const judy = rows.find((r) => r.path === '20261130-judy.md');
    expect(judy).toMatchObject({
      title: 'Judy',
      date: '2026-11-30',
      author: 'phone',
      kind: null,
      archived: false,
      body: '# Judy\n\nJudy paints lake sunrises.',
    });
    expect(judy.fragments).toEqual([
      { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), source: 'laptop', text: 'Moved to Paris.' },
      { date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/), source: null, text: 'Studio\n------\nShe rents one in Montmartre.' },
    ]);
    const planB = rows.find((r) => r.path === '20261102-plan-b.md');
    expect(planB.superseded_by).toBe(rows.find((r) => r.path === '20261103-plan-c.md').uuid);
    expect(planB.links).toEqual([{ label: 'Judy', target: '20261130-judy.md', path: '20261130-judy.md', uuid: judy.uuid }]);
    expect(rows.find((r) => r.title === '東京 2026').links).toEqual([{ label: 'Judy', target: 'Judy', path: '20261130-judy.md', uuid: judy.uuid }]);
    expect(rows.find((r) => r.path.startsWith('.archive/'))).toMatchObject({ archived: true, title: 'Gone' });

    const copy = tempCorpus();
    const im = await zk(['import', 'jsonl', out, '--json', '--root', copy], { env: ENV });
    expect(im.json).toMatchObject({ ok: true, created: 10, failed: [] });
    expect(noteBytes(copy)).toEqual(noteBytes(root));
    const again = await zk(['import', 'jsonl', out, '--json', '--root', copy], { env: ENV });
    expect(again.json).toMatchObject({ created: 0, merged: 0, skipped: 10 });
    expect(noteBytes(copy)).toEqual(noteBytes(root));
  });

  it('export then import gives the example corpus back byte for byte', async () => {
    const root = tempDir();
    fs.cpSync(path.join(REPO, 'examples', 'corpus'), root, { recursive: true });
    const exported = await zk(['export', 'jsonl', '--root', root]);
    expect(exported.code).toBe(0);
    const out = fileIn(tempDir(), 'example.jsonl', `${exported.stdout}\n`);
    const copy = tempCorpus();
    const im = await zk(['import', 'jsonl', out, '--json', '--root', copy], { env: ENV });
    expect(im.json.failed).toEqual([]);
    expect(im.json.created).toBe(Object.keys(noteBytes(root)).length);
    expect(noteBytes(copy)).toEqual(noteBytes(root));
  });

  it('a note changed since the export gets what the export adds as a fragment; other notes are skipped', async () => {
    const root = await featureCorpus();
    const out = path.join(tempDir(), 'corpus.jsonl');
    await zk(['export', 'jsonl', '--out', out, '--root', root]);
    const copy = tempCorpus();
    await zk(['import', 'jsonl', out, '--root', copy], { env: ENV });
    // The source corpus learns something; the copy has its own later fragment.
    await zk(['merge', 'judy', 'Took up sailing.', '--root', root], { env: ENV });
    await zk(['merge', 'judy', 'Copy-only news.', '--root', copy], { env: ENV });
    const before = read(copy, '20261130-judy.md');
    await zk(['export', 'jsonl', '--out', out, '--root', root]);
    const r = await zk(['import', 'jsonl', out, '--json', '--root', copy], { env: ENV });
    expect(r.json).toMatchObject({ created: 0, merged: 1, skipped: 9 });
    const after = read(copy, '20261130-judy.md');
    expect(after.startsWith(before)).toBe(true);
    expect(after.slice(before.length)).toMatch(/^\n\n---\n\*[^\n]*\(jsonl\):\* \*[^\n]*:\* Took up sailing\.\n$/);
  });

  it('refuses a note name that would leave the corpus, and a line that is no export', async () => {
    const root = tempCorpus();
    const outside = tempDir();
    const src = fileIn(
      tempDir(),
      'x.jsonl',
      jsonl([
        { path: '../escape.md', raw: '# Escape\n' },
        { path: '.archive/../../escape2.md', raw: '# Escape\n' },
        { title: 'no raw' },
        { path: 'fine.md', raw: '# Fine\n' },
      ]),
    );
    const r = await zk(['import', 'jsonl', src, '--json', '--root', root], { env: ENV });
    expect(r.code).toBe(1);
    expect(r.json.created).toBe(1);
    expect(r.json.failed.map((f: any) => f.reason)).toEqual([
      'no "path" and "raw" text: not a zk-memory jsonl export',
      'not a note file name: "../escape.md"',
      'not a note file name: "../../escape2.md"',
    ]);
    expect(mdFiles(root)).toEqual(['fine.md']);
    expect(fs.readdirSync(path.dirname(root)).filter((f) => f.startsWith('escape'))).toEqual([]);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

describe('import jsonl into a corpus that has notes of its own', () => {
  it('refuses a note whose name another note of the corpus has, and imports the rest', async () => {
    const root = await featureCorpus();
    const out = path.join(tempDir(), 'corpus.jsonl');
    await zk(['export', 'jsonl', '--out', out, '--root', root]);
    const other = tempCorpus();
    fileIn(other, '20261130-judy.md', '---\nuuid: 00000000-0000-4000-8000-000000000001\ntitle: Another Judy\n---\n\n# Another Judy\n');
    const r = await zk(['import', 'jsonl', out, '--json', '--root', other], { env: ENV });
    expect(r.json).toMatchObject({
      created: 9,
      failed: [{ item: expect.stringContaining('(20261130-judy.md)'), reason: "20261130-judy.md is another note's name in this corpus" }],
    });
    expect(read(other, '20261130-judy.md')).toContain('Another Judy');
  });
});

describe('export: bad requests', () => {
  it('an unknown format, --json without --out, or --out naming a folder is a usage error; nothing is written', async () => {
    const root = await featureCorpus();
    const dir = tempDir();
    const cases: [string[], RegExp][] = [
      [['export', 'csv'], /^error: unknown export format "csv" \(one of: jsonl, memory-json\)$/],
      [['export', 'jsonl', '--json'], /export --json needs --out/],
      [['export', 'jsonl', '--out', dir], /--out .*: not a file$/],
    ];
    for (const [args, message] of cases) {
      const r = await zk([...args, '--root', root]);
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.json?.error?.message ?? r.stderr).toMatch(message);
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('export memory-json', () => {
  it('writes entities and relations the reference memory server reads, and reads back to the same graph', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'memory.jsonl', MEMORY);
    await zk(['import', 'memory-json', src, '--root', root], { env: ENV });
    await zk(['merge', 'Alice', 'Speaks Spanish', '--root', root], { env: ENV });
    const r = await zk(['export', 'memory-json', '--root', root]);
    const rows = r.stdout.split('\n').map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.type === 'entity').sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { type: 'entity', name: 'Acme', entityType: 'organization', observations: [] },
      { type: 'entity', name: 'Alice', entityType: 'person', observations: ['Works at Acme', 'Likes tea', 'Speaks Spanish'] },
      { type: 'entity', name: 'Bob', entityType: 'person', observations: ['Plays the cello'] },
    ]);
    expect(rows.filter((x) => x.type === 'relation')).toEqual([
      { type: 'relation', from: 'Alice', to: 'Bob', relationType: 'manages' },
      { type: 'relation', from: 'Alice', to: 'Acme', relationType: 'works at' },
    ]);
    // Every line is what the server's loader accepts: an entity or relation with exactly its keys.
    for (const row of rows)
      expect(Object.keys(row)).toEqual(row.type === 'entity' ? ['type', 'name', 'entityType', 'observations'] : ['type', 'from', 'to', 'relationType']);
  });
});

describe('one import at a time', () => {
  it('a second import while one runs is refused with exit 4 and writes nothing', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'memory.jsonl', MEMORY);
    // A live holder of the caretaker lease (this test process): the import must wait its turn.
    fs.writeFileSync(
      path.join(root, '.zk', 'lease'),
      `${JSON.stringify({ host: os.hostname(), pid: process.pid, purpose: 'import mem0', since: new Date().toISOString(), expires: new Date(Date.now() + 60_000).toISOString() })}\n`,
    );
    const r = await zk(['import', 'memory-json', src, '--root', root], { env: ENV });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^error: caretaker lease held by .* \(import mem0\) until /);
    expect(mdFiles(root)).toEqual([]);
  });
});

describe('import obsidian and basic-memory', () => {
  it('flattens nested folders (numbered names for the same note name), keeps frontmatter, adds a uuid, and keeps links resolving', async () => {
    const vault = tempDir();
    fileIn(
      vault,
      'Home.md',
      '---\naliases: [Start]\ntags: [index]\n---\n# Home\n\nSee [[Projects/Plan]], [[Areas/Plan|the other plan]], [[Recipes]] and [the map](Areas/Plan.md#Goals).\n\n![[map.png]]\n',
    );
    fileIn(vault, 'Projects/Plan.md', 'Ship it. Back to [[Start]].\n');
    fileIn(vault, 'Areas/Plan.md', '## Goals\n\nStay well. Also [[Plan]] here, and [[Recipes#Soup]].\n');
    fileIn(vault, 'Recipes.md', '---\ntitle: Recipes\ncreated: 2025-05-06\n---\n## Soup\n\nLentils.\n');
    fileIn(vault, 'map.png', 'PNG');
    fileIn(vault, '.obsidian/app.json', '{}');
    const outside = fileIn(tempDir(), 'secret.md', 'secret outside the vault');
    fs.symlinkSync(outside, path.join(vault, 'Leak.md'));
    const root = tempCorpus();
    const r = await zk(['import', 'obsidian', vault, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 4, attachments: ['map.png'], failed: [{ item: 'Leak.md', reason: 'symlink leads outside the folder' }] });
    const files = mdFiles(root);
    expect(files.map((f) => f.replace(/^\d{8}-/, '')).sort()).toEqual(['home.md', 'plan-2.md', 'plan.md', 'recipes.md']);
    expect(files).toContain('20250506-recipes.md');
    const byId = (id: string) => notesFrom(root, id)[0];
    const home = read(root, byId('Home.md'));
    expect(home).toMatch(
      /^---\nuuid: [0-9a-f-]{36}\ntitle: Home\ndate: \d{4}-\d{2}-\d{2}\nimported_from:\n {2}format: obsidian\n {2}id: Home\.md\naliases:\n {2}- Start\ntags:\n {2}- index\n---\n\n# Home\n\n/,
    );
    const planA = byId('Projects/Plan.md').replace(/\.md$/, '');
    const planB = byId('Areas/Plan.md').replace(/\.md$/, '');
    // Two notes are titled Plan: a link by a path is rewritten to the file name, keeping what it showed; one to Recipes still fits.
    expect(home).toContain(`See [[${planA}|Projects/Plan]], [[${planB}|the other plan]], [[Recipes]] and [the map](${planB}.md#Goals).`);
    expect(home).toContain('![[map.png]]');
    // An alias is Obsidian's name, not this tool's: the link is given the note's file name, showing the alias.
    expect(read(root, byId('Projects/Plan.md'))).toContain(`Ship it. Back to [[${byId('Home.md').replace(/\.md$/, '')}|Start]].`);
    // Two notes are titled Plan, but the name still fits the one the link meant (its undated slug is `plan`): kept as written.
    expect(planB).toMatch(/-plan$/);
    expect(read(root, byId('Areas/Plan.md'))).toContain('Also [[Plan]] here, and [[Recipes#Soup]].');
    expect(fs.readdirSync(root).some((f) => f.includes('secret') || f.includes('leak'))).toBe(false);
    // Every link of the imported notes resolves, as the tool reads them.
    for (const f of files) {
      const links = (await zk(['read', f, '--json', '--root', root])).json.links;
      for (const l of links) expect({ f, target: l.target, resolved: l.resolved }).toEqual({ f, target: l.target, resolved: true });
    }
    const again = await zk(['import', 'obsidian', vault, '--json', '--root', root], { env: ENV });
    expect(again.json).toMatchObject({ created: 0, merged: 0, skipped: 4 });
  });

  it('basic-memory: titles from frontmatter, relations as wikilinks to titles keep resolving', async () => {
    const project = tempDir();
    fileIn(
      project,
      'people/dana.md',
      '---\ntitle: Dana Whitfield\ntype: note\npermalink: people/dana-whitfield\n---\n\n# Dana Whitfield\n\n## Observations\n- [role] Welder on the night shift\n\n## Relations\n- works_at [[Acme Works]]\n',
    );
    fileIn(project, 'orgs/acme.md', '---\ntitle: Acme Works\ntype: note\npermalink: orgs/acme-works\n---\n\n# Acme Works\n\nA foundry.\n');
    const root = tempCorpus();
    const r = await zk(['import', 'basic-memory', project, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 2, failed: [] });
    const dana = notesFrom(root, 'people/dana.md')[0];
    expect(read(root, dana)).toMatch(
      /\ntitle: Dana Whitfield\n[\s\S]*\ntype: note\npermalink: people\/dana-whitfield\n---\n\n# Dana Whitfield\n\n## Observations\n- \[role\] Welder on the night shift\n\n## Relations\n- works_at \[\[Acme Works\]\]\n$/,
    );
    const links = (await zk(['read', dana, '--json', '--root', root])).json.links;
    expect(links.map((l: any) => l.path)).toEqual([notesFrom(root, 'orgs/acme.md')[0]]);
  });

  it("a note's own frontmatter cannot say where it came from, nor repeat the keys the note sets", async () => {
    const vault = tempDir();
    fileIn(vault, 'Spoof.md', '---\nimported_from:\n  format: obsidian\n  id: Other.md\nauthor: someone\nuuid: not-a-uuid\ncolor: red\n---\nText.\n');
    const root = tempCorpus();
    const r = await zk(['import', 'obsidian', vault, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 1, failed: [] });
    const text = read(root, mdFiles(root)[0]);
    expect(text).toMatch(
      /^---\nuuid: [0-9a-f-]{36}\ntitle: Spoof\ndate: \d{4}-\d{2}-\d{2}\nimported_from:\n {2}format: obsidian\n {2}id: Spoof\.md\ncolor: red\n---\n/,
    );
    expect((await zk(['import', 'obsidian', vault, '--json', '--root', root], { env: ENV })).json).toMatchObject({ skipped: 1 });
  });

  it('a folder that is not one, or the corpus itself, is one error line, exit 2', async () => {
    const root = tempCorpus();
    fileIn(root, '20260101-a.md', '# A\n');
    const self = await zk(['import', 'obsidian', root, '--root', root]);
    expect(self.code).toBe(2);
    expect(self.stderr).toBe(`error: ${root} is the corpus itself: import reads memory kept elsewhere`);
    expect(mdFiles(root)).toEqual(['20260101-a.md']);
    const r = await zk(['import', 'obsidian', fileIn(tempDir(), 'x.md', '# x'), '--root', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*x\.md: not a folder$/);
  });
});

describe('import claude-code and codex', () => {
  it('Claude Code: one note per topic file, the index lines that are no pointers a note of their own', async () => {
    const dir = tempDir();
    fileIn(
      dir,
      'MEMORY.md',
      '# Memory index\n\n## Feedback\n- [Testing style](feedback_testing.md) — real databases, no mocks\n- [Deploys](project_deploys.md) — freeze on Fridays\n\n## Loose\n- The user prefers short answers.\n',
    );
    fileIn(
      dir,
      'feedback_testing.md',
      '---\nname: Testing style\ndescription: integration tests hit a real database\ntype: feedback\n---\n\nNever mock the database; see [deploys](project_deploys.md).\n',
    );
    fileIn(dir, 'project_deploys.md', '---\nname: Deploys\ndescription: release rules\ntype: project\n---\n\nNo deploys on Fridays.\n');
    const root = tempCorpus();
    const r = await zk(['import', 'claude-code', dir, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 3, failed: [] });
    const testing = read(root, notesFrom(root, 'feedback_testing.md')[0]);
    const deploys = notesFrom(root, 'project_deploys.md')[0];
    expect(testing).toMatch(
      /\ntitle: Testing style\n[\s\S]*\ndescription: integration tests hit a real database\ntype: feedback\n---\n\n# Testing style\n\nNever mock the database; see \[deploys\]\(/,
    );
    expect(testing).toContain(`[deploys](${deploys})`);
    const index = read(root, notesFrom(root, 'MEMORY.md')[0]);
    expect(index).toContain('# Claude Code memory index\n\n# Memory index\n\n## Feedback\n\n## Loose\n- The user prefers short answers.\n');
    expect(index).not.toContain('Testing style');
  });

  it('Codex: the summary, each handbook block, rollout summaries and skills; raw memories left out', async () => {
    const dir = tempDir();
    fileIn(dir, 'memory_summary.md', '## User Profile\n\nLikes Rust.\n\n## General Tips\n- Run cargo test -p core first.\n');
    fileIn(
      dir,
      'MEMORY.md',
      '---\nrollout_summary_files:\n  - 2026-02-12T10-30-00-ci.md (success, cwd=/repo, updated_at=2026-02-12T10:30:00Z)\ndescription: Fixing flaky CI\nkeywords: ci, flaky, retry\n---\n\n- Retry the network tests once.\n\n---\nrollout_summary_files:\n  - 2026-02-13T09-00-00-docs.md (partial, cwd=/repo, updated_at=2026-02-13T09:00:00Z)\ndescription: Docs build\nkeywords: mdbook\n---\n\n- mdbook needs the linkcheck plugin.\n',
    );
    fileIn(dir, 'raw_memories.md', 'scratch input\n');
    fileIn(dir, 'rollout_summaries/2026-02-12T10-30-00-ci.md', '# CI fix\n\nThe retry worked.\n');
    fileIn(dir, 'skills/ci-retry/SKILL.md', '---\nname: ci-retry\ndescription: retry flaky network tests\n---\n\n1. Rerun once.\n');
    fileIn(dir, 'skills/ci-retry/scripts/retry.sh', 'echo retry\n');
    const root = tempCorpus();
    const r = await zk(['import', 'codex', dir, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 5, failed: [], attachments: ['skills/ci-retry/scripts/retry.sh'] });
    const titles = mdFiles(root)
      .map((f) => /\ntitle: '?(.*?)'?\n/.exec(read(root, f))![1])
      .sort();
    expect(titles).toEqual(['CI fix', 'Codex memory summary', 'Docs build', 'Fixing flaky CI', 'Skill: ci-retry']);
    const ci = read(root, notesFrom(root, "'MEMORY.md: Fixing flaky CI'")[0]);
    expect(ci).toContain('keywords: ci, flaky, retry\n');
    expect(ci).toContain('# Fixing flaky CI\n\n- Retry the network tests once.\n');
    expect(mdFiles(root).some((f) => read(root, f).includes('scratch input'))).toBe(false);
  });
});

/** A ChatGPT conversation with an edited question (two branches) and null messages, as its export writes the mapping tree. */
function chatgptExport(): unknown[] {
  const node = (id: string, parent: string | null, children: string[], message: unknown) => ({ id, parent, children, message });
  const msg = (id: string, role: string, parts: unknown[], extra: Record<string, unknown> = {}) => ({
    id,
    author: { role, name: null, metadata: {} },
    create_time: 1700000000,
    content: { content_type: 'text', parts },
    status: 'finished_successfully',
    metadata: {},
    ...extra,
  });
  return [
    {
      title: 'Trip to Lisbon',
      create_time: 1700000000.5,
      update_time: 1700000900,
      conversation_id: 'c-lisbon',
      id: 'c-lisbon',
      current_node: 'a2',
      mapping: {
        root: node('root', null, ['sys'], null),
        sys: node('sys', 'root', ['u1'], msg('sys', 'system', [''], { metadata: { is_visually_hidden_from_conversation: true } })),
        u1: node('u1', 'sys', ['a1-old', 'a1'], msg('u1', 'user', ['Where should I stay in Lisbon?'])),
        'a1-old': node('a1-old', 'u1', [], msg('a1-old', 'assistant', ['A REGENERATED ANSWER NOT SHOWN'])),
        a1: node('a1', 'u1', ['u2-old', 'u2'], msg('a1', 'assistant', ['Alfama is lovely.'])),
        'u2-old': node('u2-old', 'a1', [], msg('u2-old', 'user', ['AN EDITED-AWAY QUESTION'])),
        u2: node('u2', 'a1', ['gap'], msg('u2', 'user', ['And for food?', { content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' }])),
        gap: node('gap', 'u2', ['a2'], null),
        a2: node('a2', 'gap', [], msg('a2', 'assistant', ['Try the pastéis de nata.'])),
      },
    },
  ];
}

function claudeExport(): unknown[] {
  return [
    {
      uuid: 'k-1',
      name: 'Garden plans',
      created_at: '2025-04-01T09:00:00.000000Z',
      updated_at: '2025-04-01T10:00:00Z',
      account: { uuid: 'acc' },
      chat_messages: [
        {
          uuid: 'm1',
          sender: 'human',
          text: 'Plan my beds.',
          content: [{ type: 'text', text: 'Plan my beds.' }],
          created_at: '2025-04-01T09:00:00Z',
          attachments: [{ file_name: 'beds.txt', file_type: 'txt', file_size: 20, extracted_content: 'Bed A: 2x1 m' }],
          files: [{ file_name: 'photo.jpg' }],
        },
        {
          uuid: 'm2',
          sender: 'assistant',
          text: 'Tomatoes in bed A.',
          content: [{ type: 'text', text: 'Tomatoes in bed A.' }],
          created_at: '2025-04-01T09:01:00Z',
          attachments: [],
          files: [],
        },
      ],
    },
    { uuid: 'k-2', name: 'Empty', created_at: '2025-04-02T09:00:00Z', chat_messages: [] },
  ];
}

describe('import chatgpt and claude conversations', () => {
  it('ChatGPT: each conversation one retain input in the inbox, following the branch that ends at current_node; re-import skips it', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'conversations.json', JSON.stringify(chatgptExport()));
    const r = await zk(['import', 'chatgpt', src, '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ created: 0, queued: 1, failed: [] });
    const inbox = await zk(['inbox', '--json', '--root', root]);
    expect(inbox.json.files).toHaveLength(1);
    expect(inbox.json.files[0].source).toBe('chatgpt c-lisbon');
    expect(inbox.json.files[0].items[0].text).toBe(
      'Conversation: Trip to Lisbon (2023-11-14T22:13:20.500Z, chatgpt c-lisbon)\n\n**User:** Where should I stay in Lisbon?\n\n**Assistant:** Alfama is lovely.\n\n**User:** And for food?\n\n[image_asset_pointer]\n\n**Assistant:** Try the pastéis de nata.',
    );
    const again = await zk(['import', 'chatgpt', src, '--json', '--root', root], { env: ENV });
    expect(again.json).toMatchObject({ queued: 0, skipped: 1 });
    expect((await zk(['inbox', '--json', '--root', root])).json.files).toHaveLength(1);
  });

  it('Claude: --verbatim writes each conversation as a note of kind conversation, attachments named with their text', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'conversations.json', JSON.stringify(claudeExport()));
    const r = await zk(['import', 'claude', src, '--verbatim', '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({
      created: 1,
      failed: [{ item: 'conversations.json conversation #2 (k-2)', reason: 'no message from the user or the assistant' }],
    });
    expect(mdFiles(root)).toEqual(['20250401-garden-plans.md']);
    expect(read(root, '20250401-garden-plans.md')).toMatch(
      /\ntitle: Garden plans\ndate: 2025-04-01\nkind: conversation\nimported_from:\n {2}format: claude\n {2}id: k-1\nconversation_id: k-1\ncreated_at: '?2025-04-01T09:00:00.000000Z'?\n---\n\n# Garden plans\n\n\*\*User:\*\* Plan my beds\.\n\nAttached beds\.txt:\n\nBed A: 2x1 m\n\n\[file photo\.jpg\]\n\n\*\*Assistant:\*\* Tomatoes in bed A\.\n$/,
    );
    const listed = await zk(['list', '--kind', 'conversation', '--json', '--root', root]);
    expect(listed.json.notes.map((n: any) => n.kind)).toEqual(['conversation']);
  });

  it('a conversation over the size limit fails on its own; --verbatim is refused for other formats', async () => {
    const root = tempCorpus();
    const big = claudeExport();
    (big[0] as any).chat_messages[0].content[0].text = 'x'.repeat(3000);
    const src = fileIn(tempDir(), 'conversations.json', JSON.stringify(big));
    const r = await zk(['import', 'claude', src, '--json', '--root', root], { env: { ...ENV, ZK_MEMORY_MAX_BODY: '2000' } });
    expect(r.code).toBe(1);
    expect(r.json.failed[1]).toEqual({
      item: 'conversations.json conversation #1 ("Garden plans")',
      reason: expect.stringMatching(/^\d+ bytes, over the 2000 an input may have/),
    });
    expect(fs.existsSync(path.join(root, '.zk', 'inbox'))).toBe(false);
    const wrong = await zk(['import', 'mem0', src, '--verbatim', '--root', root]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toBe('error: --verbatim is for conversation exports (chatgpt, claude), not mem0');
  });
});

describe('import --commit', () => {
  it('commits the notes the import wrote, and nothing else, with a message that counts them', async () => {
    const top = tempDir('zk-git-');
    const git = async (...args: string[]) => String((await execa('git', args, { cwd: top })).stdout);
    await git('init', '-q', '-b', 'main');
    for (const [k, v] of [
      ['user.name', 'Test'],
      ['user.email', 'test@example.org'],
      ['commit.gpgsign', 'false'],
      ['core.hooksPath', '.git/hooks'],
    ])
      await git('config', k, v);
    fileIn(top, 'unrelated.txt', 'not mine\n');
    const src = fileIn(tempDir(), 'memory.jsonl', MEMORY);
    const r = await zk(['import', 'memory-json', src, '--commit', '--json', '--root', top], { env: ENV });
    expect(r.json).toMatchObject({ created: 3, commit: { sha: expect.any(String) } });
    expect(await git('log', '--format=%s')).toBe('import memory-json: 3 created');
    const committed = (await git('show', '--name-only', '--format=', 'HEAD')).split('\n').sort();
    expect(committed).toEqual([...mdFiles(top), '.zk/.gitignore', '.zk/trace.jsonl'].sort());
  });
});

describe('import: more of what every import keeps', () => {
  it('an item over the size limit fails on its own; the others are written', async () => {
    const root = tempCorpus();
    const src = fileIn(
      tempDir(),
      'memory.jsonl',
      jsonl([
        { type: 'entity', name: 'Huge', entityType: 'blob', observations: ['x'.repeat(5000)] },
        { type: 'entity', name: 'Small', entityType: 'thing', observations: ['ok'] },
      ]),
    );
    const r = await zk(['import', 'memory-json', src, '--json', '--root', root], { env: { ...ENV, ZK_MEMORY_MAX_BODY: '4000' } });
    expect(r.json).toMatchObject({
      created: 1,
      failed: [{ item: 'memory.jsonl:1 (entity "Huge")', reason: expect.stringMatching(/^note too large: \d+ bytes \(limit 4000/) }],
    });
    expect(mdFiles(root).map((f) => f.replace(/^\d{8}-/, ''))).toEqual(['small.md']);
  });

  it('--dry-run of conversations queues nothing and records nothing', async () => {
    const root = tempCorpus();
    const src = fileIn(tempDir(), 'conversations.json', JSON.stringify(chatgptExport()));
    const before = snapshot(root);
    const r = await zk(['import', 'chatgpt', src, '--dry-run', '--json', '--root', root], { env: ENV });
    expect(r.json).toMatchObject({ dry_run: true, queued: 1 });
    expect(snapshot(root)).toEqual(before);
  });

  it('says how far it is on stderr when that is a terminal and the import is long', async () => {
    const root = tempCorpus();
    const rows = Array.from({ length: 400 }, (_, i) => ({ type: 'entity', name: `E${i}`, entityType: 't', observations: [`o${i}`] }));
    const src = fileIn(tempDir(), 'memory.jsonl', jsonl(rows));
    // `script` gives the command a terminal; its output is what that terminal showed.
    const r = await execa('script', ['-qec', `node ${BIN} import memory-json ${src} --root ${root}`, '/dev/null'], {
      env: { ...process.env, ...ENV, ZK_MEMORY_ROOT: '' },
      reject: false,
    });
    expect(r.exitCode).toBe(0);
    expect(String(r.stdout)).toMatch(/\rimporting: 400\/400 items\r?\n/);
    expect(mdFiles(root)).toHaveLength(400);
  }, 60_000);
});
