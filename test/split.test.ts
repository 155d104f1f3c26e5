import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseLinks } from '../src/corpus/markdown/links.js';
import { loadNotes, readNoteFile } from '../src/corpus/note/notes.js';
import { writeNote } from '../src/corpus/ops/write.js';
import { splitNote } from '../src/pipelines/split.js';
import { splitCandidates } from '../src/pipelines/split-candidates.js';
import { tendCheck } from '../src/tend/run.js';
import { stubLlm } from './helpers/llm-stub.js';
import { snapshot, tempCorpus, write } from './helpers/corpus.js';
import { MOMENT } from './helpers/moments.js';

const BIO = [
  'Judy is a painter who lives in London.',
  'In 2024 Judy took up sailing and crossed the Channel in a small boat.',
  'Judy decided to stop taking commissions: she paints only what she chooses.',
].join('\n\n');

function fragments(extra: Record<string, unknown>[] = []) {
  return [
    { title: 'Judy the painter', slug: 'judy-painter', content: 'Judy is a painter who lives in London.', kind: 'entity_update' },
    { title: 'Judy goes sailing', slug: 'garden', content: 'In 2024 Judy took up sailing and crossed the Channel in a small boat.', kind: 'concept' },
    {
      title: 'No more commissions',
      slug: 'no-commissions',
      content: 'Judy stopped taking commissions: she paints only what she chooses.',
      kind: 'decision',
      choice: 'no commissions',
      alternatives: ['a waiting list'],
      rationale: 'she paints only what she chooses',
    },
    ...extra,
  ];
}

const splitting = (frags = fragments()) =>
  stubLlm({ record_split_decision: () => ({ split: true, parent_summary: 'Judy: painter, sailor, no commissions.', fragments: frags }) });

/** A corpus with an overgrown note and notes that link to it by name, by uuid, and by a stale name with its uuid. */
function corpus() {
  const root = tempCorpus();
  const judy = writeNote(root, {
    slug: 'judy',
    title: 'Judy',
    body: `${BIO}\n\n## Related\n\n- [Sailing](20260101-sailing.md)`,
    date: '2026-01-01',
    source: 'chef',
  });
  writeNote(root, { slug: 'sailing', title: 'Sailing', body: 'Boats.', date: '2026-01-01' });
  writeNote(root, { slug: 'garden', title: 'Garden', body: 'Tomatoes.', date: new Date().toISOString().slice(0, 10) });
  const friends = writeNote(root, {
    slug: 'friends',
    title: 'Friends',
    body: `[Judy](${judy.path}) <!-- uuid: ${judy.uuid} -->\n\nAlso [her](${judy.path}) and [by old name](19990101-judy.md) <!-- uuid: ${judy.uuid} -->.`,
  });
  return { root, judy, friends };
}

afterEach(() => {
  delete process.env.ZK_MEMORY_MAX_BODY;
});

describe('split', () => {
  it('parent takes the exact name with a fresh uuid; children link back; every link resolves; the original is archived', async () => {
    const { root, judy, friends } = corpus();
    const llm = splitting();
    const r = await splitNote(root, 'judy', { llm });
    expect(r.action).toBe('split');
    const parent = r.parent!;
    expect(parent.path).toBe(judy.path);
    expect(parent.uuid).not.toBe(judy.uuid);
    expect(parent.supersedes).toEqual([judy.uuid]);
    expect(parent.author).toBe('chef');
    expect(r.archived).toBe(`.archive/${judy.path}`);
    const archived = readNoteFile(path.join(root, '.archive'), judy.path)!;
    expect(archived.superseded_by).toBe(parent.uuid);
    // When it was replaced and archived is recorded beside superseded_by.
    expect(archived.times.superseded_at).toMatch(new RegExp(`^${MOMENT}$`));
    expect(archived.times.archived_at).toMatch(new RegExp(`^${MOMENT}$`));
    expect(
      archived.raw.replace(`superseded_by: ${parent.uuid}\nsuperseded_at: ${archived.times.superseded_at}\narchived_at: ${archived.times.archived_at}\n`, ''),
    ).toBe(judy.raw);

    // children: unique names (the "garden" slug is taken today), decisions stay decisions, each links back
    expect(r.children.map((c) => c.path)).toEqual([
      expect.stringMatching(/^\d{8}-judy-painter\.md$/),
      expect.stringMatching(/^\d{8}-garden-2\.md$/),
      expect.stringMatching(/^\d{8}-no-commissions\.md$/),
    ]);
    expect(r.children.map((c) => c.kind)).toEqual(['entity_update', 'concept', 'decision']);
    expect(r.children[2].parsed.body).toContain(
      [
        '**Decision:** no commissions',
        'Judy stopped taking commissions: she paints only what she chooses.',
        '**Alternatives considered:**\n- a waiting list',
        '**Rationale:** she paints only what she chooses',
        'Part of [Judy](',
      ].join('\n\n'),
    );
    for (const c of r.children) {
      expect(c.parsed.frontmatter.split_from).toBe(parent.uuid);
      expect(parseLinks(c.raw).map((l) => [l.target, l.uuid])).toContainEqual([parent.path, parent.uuid]);
    }
    // the parent links to each child's real name with its uuid, and keeps the original's Related links
    const parentLinks = parseLinks(parent.raw).map((l) => [l.target, l.uuid ?? null]);
    for (const c of r.children) expect(parentLinks).toContainEqual([c.path, c.uuid]);
    expect(parentLinks).toContainEqual(['20260101-sailing.md', null]);
    expect(parent.raw).toContain('# Judy\n\nJudy: painter, sailor, no commissions.\n\n## Parts\n\n- [Judy the painter](');

    // inbound anchors now name the parent (the stale name too); plain links by name still resolve
    const f = fs.readFileSync(friends.file, 'utf8');
    expect(f).toBe(friends.raw.replaceAll(judy.uuid, parent.uuid).replace('19990101-judy.md', judy.path));
    for (const n of loadNotes(root)) {
      expect(
        parseLinks(n.raw).filter((l) => l.uuid === judy.uuid),
        n.path,
      ).toEqual([]);
    }
    const check = tendCheck(root);
    expect(check.counts).toMatchObject({ stale: 0, broken: 0 });
    const traced = fs.readFileSync(path.join(root, '.zk/trace.jsonl'), 'utf8');
    expect(traced).toMatch(/"event":"split".*"action":"split"/);
    expect(llm.calls[0].messages.at(-1)!.content).not.toContain('## Related');
  });

  it('a decision fragment without its choice is sent back once, then the split fails and changes nothing', async () => {
    const { root } = corpus();
    const before = snapshot(root, { skip: /^\.zk/ });
    const bare = fragments().map((f) => ({ title: f.title, slug: f.slug, content: f.content, kind: f.kind }));
    const llm = splitting(bare);
    await expect(splitNote(root, 'judy', { llm })).rejects.toMatchObject({
      code: 'llm_failed',
      message: expect.stringMatching(/fragments\/2\/choice: a decision needs the choice/),
    });
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls[0].messages[0].content).toMatch(/a fragment of kind decision also gives choice/);
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
    fs.rmSync(root, { recursive: true });
  });

  it('not split: nothing changes', async () => {
    const { root } = corpus();
    const before = snapshot(root, { skip: /^\.zk/ });
    const r = await splitNote(root, 'judy', { llm: stubLlm({ record_split_decision: () => ({ split: false, parent_summary: '', fragments: [] }) }) });
    expect(r).toMatchObject({ action: 'not_split', children: [] });
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
  });

  it('a hand-written author that no source could be is carried to the children as plain words', async () => {
    const root = tempCorpus();
    write(
      root,
      '20260101-judy.md',
      `---\nuuid: 2a0c5b1e-3f4d-4e5f-8a6b-7c8d9e0f1a2b\ntitle: Judy\ndate: 2026-01-01\nauthor: "Jane (PM)\u2028*notes*"\n---\n\n# Judy\n\n${BIO}\n`,
    );
    const r = await splitNote(root, 'judy', { llm: splitting() });
    expect(r.action).toBe('split');
    expect(r.failed ?? []).toEqual([]);
    expect(r.children).toHaveLength(3);
    for (const c of r.children) expect(readNoteFile(root, c.path)?.author).toBe('Jane PM notes');
  });

  it('an LLM that fails changes nothing', async () => {
    const { root } = corpus();
    const before = snapshot(root, { skip: /^\.zk/ });
    await expect(splitNote(root, 'judy', { llm: stubLlm({}) })).rejects.toMatchObject({ code: 'llm_failed', exitCode: 3 });
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
  });

  it('a note changed while the judge was thinking is left alone', async () => {
    const { root, judy } = corpus();
    const llm = stubLlm({
      record_split_decision: () => {
        fs.appendFileSync(judy.file, '\n\n---\n*2026-01-02:* Judy bought a kayak.\n');
        return { split: true, parent_summary: 'Judy.', fragments: fragments() };
      },
    });
    const before = snapshot(root, { skip: /^\.zk/ });
    await expect(splitNote(root, 'judy', { llm })).rejects.toMatchObject({ code: 'busy' });
    const after = snapshot(root, { skip: /^\.zk/ });
    expect(Object.keys(after)).toEqual(Object.keys(before));
  });

  it('asks for at most --max-fragments, cuts extra fragments, and a child that cannot be written stays in the parent, unlinked', async () => {
    const { root } = corpus();
    process.env.ZK_MEMORY_MAX_BODY = '500';
    const big = { title: 'Too big', slug: 'too-big', content: `BIG ${'x'.repeat(600)}`, kind: 'concept' };
    const llm = splitting([fragments()[0], big, fragments()[2]]);
    const r = await splitNote(root, 'judy', { llm, maxFragments: 2 });
    expect(llm.calls[0].messages[0].content).toContain('at most 2');
    expect(r.children.map((c) => c.title)).toEqual(['Judy the painter']);
    expect(r.failed).toEqual([{ title: 'Too big', error: expect.stringMatching(/too large/) }]);
    expect(r.parent!.raw).toContain(`## Too big\n\nBIG ${'x'.repeat(600)}`);
    expect(parseLinks(r.parent!.raw).map((l) => l.target)).not.toContain(expect.stringMatching(/too-big/));
  });

  it('refuses superseded notes and unknown refs before any LLM call', async () => {
    const { root } = corpus();
    write(root, 'old.md', '---\nuuid: 11111111-1111-4111-8111-111111111111\nsuperseded_by: 22222222-2222-4222-8222-222222222222\n---\n# Old\n\nText.\n');
    const llm = splitting();
    await expect(splitNote(root, 'old', { llm })).rejects.toMatchObject({ code: 'refused' });
    await expect(splitNote(root, 'nope', { llm })).rejects.toMatchObject({ code: 'not_found' });
    await expect(splitNote(root, 'judy', { llm, maxFragments: 1 })).rejects.toMatchObject({ code: 'usage' });
    expect(llm.calls).toHaveLength(0);
  });
});

describe('split-candidates', () => {
  it('ranks live notes by size, largest first', () => {
    const { root } = corpus();
    write(root, 'huge-but-old.md', `---\nsuperseded_by: 22222222-2222-4222-8222-222222222222\n---\n# Old\n\n${'y'.repeat(5000)}\n`);
    const top = splitCandidates(root, 2);
    expect(top.map((n) => n.path)).toEqual([expect.stringMatching(/-judy\.md$/), expect.stringMatching(/-friends\.md$/)]);
    expect(top[0].size).toBeGreaterThan(top[1].size);
  });
});
