import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLinks } from '../src/corpus/markdown/links.js';
import { readNoteFile, type Note } from '../src/corpus/note/notes.js';
import { listNoteFiles } from '../src/corpus/files/note-files.js';
import { appendFragment } from '../src/corpus/ops/merge.js';
import { writeNote } from '../src/corpus/ops/write.js';
import { addRelated } from '../src/corpus/graph/related.js';
import { lastGardenerPass } from '../src/corpus/ops/gardener-record.js';
import type { ChatMessage } from '../src/llm/types.js';
import { runGardener, type GardenerOptions } from '../src/pipelines/gardener.js';
import { splitNote } from '../src/pipelines/split.js';
import { tendCheck } from '../src/tend/run.js';
import { stubLlm } from './helpers/llm-stub.js';
import { snapshot, tempCorpus } from './helpers/corpus.js';
import { SHARING_DAILY, SOURDOUGH } from './helpers/subject-pair.js';
import { MOMENT } from './helpers/moments.js';

/** The memory the merge judge is asked to place, and the notes it is shown. */
function judged(messages: ChatMessage[]) {
  const text = messages.map((m) => m.content).join('\n');
  const memory = /<memory>\n([\s\S]*?)\n<\/memory>/.exec(text)?.[1] ?? '';
  const shown = [...text.matchAll(/^id: (.+)\ntitle: (.+)$/gm)].map((m) => ({ id: m[1], title: m[2] }));
  return { memory, shown };
}

/** A judge that folds a memory mentioning DUPLICATE into the shown note titled `into`, and keeps the rest. */
function foldingJudge(into = 'Judy') {
  return stubLlm({
    record_merge_decision: (m) => {
      const { memory, shown } = judged(m);
      const target = memory.includes('DUPLICATE') ? shown.find((s) => s.title === into) : undefined;
      return target ? { action: 'merge', target: target.id, reason: 'same person' } : { action: 'create', target: '', reason: 'separate' };
    },
    record_split_decision: () => ({ split: false, parent_summary: '', fragments: [] }),
  });
}

const rg = { backend: 'rg' };
let clock = Date.now() / 1000 - 10_000;

/** Write a note and give it a later mtime than every note before it. */
function note(root: string, slug: string, title: string, body: string, extra: { kind?: string } = {}): Note {
  const n = writeNote(root, { slug, title, body, ...extra });
  clock += 10;
  fs.utimesSync(n.file, clock, clock);
  return readNoteFile(root, n.path)!;
}

const read = (n: Note) => fs.readFileSync(n.file, 'utf8');
const relatedSections = (text: string) => text.match(/^## Related$/gm)?.length ?? 0;
const targets = (text: string) => parseLinks(text).map((l) => l.target);

async function pass(root: string, llm: GardenerOptions['llm'], o: Partial<GardenerOptions> = {}) {
  return runGardener(root, { llm, ...rg, ...o });
}

/** Each merge judge call: the memory it placed and the titles of the notes it was shown. */
function judgedPairs(llm: ReturnType<typeof stubLlm>) {
  return llm.calls
    .filter((c) => c.name === 'record_merge_decision')
    .map((c) => judged(c.messages))
    .map((j) => [j.memory, j.shown.map((x) => x.title)]);
}

describe('tend-writes', () => {
  it('folds a duplicate (even one that links to it) into its canonical note, archives it, and points inbound links at the target', async () => {
    const root = tempCorpus();
    const judy = note(root, 'judy', 'Judy', 'Judy is a painter who lives in London.');
    const dup = note(
      root,
      'judy-again',
      'Judy again',
      `DUPLICATE: Judy the London painter likes oils. See [Judy](${judy.path}).\n\n## Related\n\n- [Oils](19990101-oils.md)`,
    );
    const fan = note(root, 'fan', 'Fan', `Loves [Judy again](${dup.path}) <!-- uuid: ${dup.uuid} --> and [the painter](${dup.path}).`);
    const r = await pass(root, foldingJudge(), { source: 'gardener' });

    expect(r.rows.find((x) => x.note === dup.path)).toEqual({ note: dup.path, action: 'merged', stage: 'tend', target: judy.path });
    expect(listNoteFiles(root)).not.toContain(dup.path);
    const archived = readNoteFile(path.join(root, '.archive'), dup.path)!;
    expect(archived.superseded_by).toBe(judy.uuid);
    expect(archived.times.superseded_at).toMatch(new RegExp(`^${MOMENT}$`));
    expect(archived.times.archived_at).toMatch(new RegExp(`^${MOMENT}$`));
    const judyText = read(judy);
    expect(judyText).toMatch(/\n\n---\n\*\d{4}-\d{2}-\d{2} \(gardener\):\* DUPLICATE: Judy the London painter likes oils\. See \[Judy\]\(.*\)\.\n/);
    expect(judyText).not.toContain('# Judy again');
    expect(relatedSections(judyText)).toBe(1);
    expect(targets(judyText)).toContain('19990101-oils.md');
    const loves = (text: string) => text.split('\n').find((l) => l.startsWith('Loves'));
    expect(loves(read(fan))).toBe(`Loves [Judy again](${judy.path}) <!-- uuid: ${judy.uuid} --> and [the painter](${judy.path}) <!-- uuid: ${judy.uuid} -->.`);
    expect(read(fan).startsWith(fan.raw.split('Loves')[0])).toBe(true);
    expect(tendCheck(root).counts).toMatchObject({ stale: 0 });
    const events = fs
      .readFileSync(path.join(root, '.zk/trace.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l).event);
    expect(events).toEqual(expect.arrayContaining(['garden', 'merge', 'archive', 'garden_pass']));
  });

  it('judges two notes on one subject that share only its rare word, and not two that share only an everyday word', async () => {
    const root = tempCorpus();
    const [a, b] = SOURDOUGH.map((n) => note(root, n.slug, n.title, n.body));
    const [c, d] = SHARING_DAILY.map((n) => note(root, n.slug, n.title, n.body));
    const llm = foldingJudge();
    const r = await pass(root, llm);
    // Each of the pair is shown the other, and only the other; the notes sharing "daily" are shown nothing.
    expect(judgedPairs(llm)).toEqual([
      [expect.stringContaining('sourdough loaves'), [a.title]],
      [expect.stringContaining('rye flour'), [b.title]],
    ]);
    expect(r.rows.find((x) => x.note === b.path)).toMatchObject({ action: 'linked', links: [a.path] });
    for (const n of [c, d]) expect(r.rows.find((x) => x.note === n.path)).toEqual({ note: n.path, action: 'kept', stage: 'tend' });
  });

  it('links a related pair with one Related section each, however many passes run', async () => {
    const root = tempCorpus();
    const [a, b] = SOURDOUGH.map((n) => note(root, n.slug, n.title, n.body));
    const llm = foldingJudge();
    const first = await pass(root, llm);
    expect(first.rows.filter((x) => x.action === 'linked').map((x) => [x.note, x.links])).toEqual([[b.path, [a.path]]]);
    for (let i = 0; i < 3; i++) {
      await appendFragment(root, a.path, `More about the starter, day ${i}.`);
      await appendFragment(root, b.path, `More about the loaves, week ${i}.`);
      await pass(root, llm);
    }
    for (const [n, other] of [
      [a, b],
      [b, a],
    ]) {
      const text = read(n);
      expect(relatedSections(text), n.path).toBe(1);
      expect(
        targets(text).filter((t) => t === other.path),
        n.path,
      ).toHaveLength(1);
      expect(parseLinks(text).find((l) => l.target === other.path)?.uuid).toBe(other.uuid);
    }
    expect(read(a)).toMatch(/\n## Related\n\n- \[Sourdough baking schedule\]\(.*\) <!-- uuid: .* -->\n\n\n---\n\*/);
  });

  it('a second pass over an unchanged corpus makes no LLM call', async () => {
    const root = tempCorpus();
    note(root, SOURDOUGH[0].slug, SOURDOUGH[0].title, `${SOURDOUGH[0].body} `.repeat(20));
    note(root, SOURDOUGH[1].slug, SOURDOUGH[1].title, SOURDOUGH[1].body);
    const first = foldingJudge();
    await pass(root, first, { splitSweep: 1 });
    expect(first.calls.map((c) => c.name)).toEqual(expect.arrayContaining(['record_split_decision', 'record_merge_decision']));
    const second = foldingJudge();
    const r = await pass(root, second, { splitSweep: 1 });
    expect(second.calls).toHaveLength(0);
    expect(r.summary).toEqual({ skipped: 3 });
    expect(lastGardenerPass(root)?.summary).toEqual({ skipped: 3 });
  });

  it("the last pass is read from the record's first line, and from a record written on one line", async () => {
    const root = tempCorpus();
    note(root, 'garden', 'Garden', 'Tomatoes and basil.');
    await pass(root, foldingJudge());
    const file = path.join(root, '.zk', 'tended.json');
    const text = fs.readFileSync(file, 'utf8');
    const record = JSON.parse(text);
    expect(text.split('\n')[0]).toBe(`{"version":1,"last_pass":${JSON.stringify(record.last_pass)},`);
    expect(lastGardenerPass(root)).toEqual(record.last_pass);
    // The notes' hashes are not what status reads: a damaged rest of the record still gives the pass.
    fs.writeFileSync(file, `${text.split('\n')[0]}\n"notes":{"x`);
    expect(lastGardenerPass(root)).toEqual(record.last_pass);
    fs.writeFileSync(file, JSON.stringify({ ...record, last_pass: { ...record.last_pass, host: 'one-line' } }));
    expect(lastGardenerPass(root)?.host).toBe('one-line');
    fs.writeFileSync(file, JSON.stringify({ ...record, last_pass: { ...record.last_pass, host: 'pretty' } }, null, 2));
    expect(lastGardenerPass(root)?.host).toBe('pretty');
  });

  it('a duplicate folded into a note written with CRLF line ends leaves nothing to judge on the next pass', async () => {
    const root = tempCorpus();
    const judy = note(root, 'judy', 'Judy', 'Judy is a painter who lives in London.');
    const stat = fs.statSync(judy.file);
    fs.writeFileSync(judy.file, read(judy).replace(/\n/g, '\r\n'));
    fs.utimesSync(judy.file, stat.atime, stat.mtime);
    await pass(root, foldingJudge());
    // Judy was tended; the duplicate written after it is folded into it by the next pass.
    note(root, 'judy-again', 'Judy again', 'DUPLICATE: Judy the London painter likes oils.');
    expect((await pass(root, foldingJudge())).summary.merged).toBe(1);
    expect(read(judy)).toMatch(/\r\n---\r\n\*\d{4}-\d{2}-\d{2}[^\n]*:\* DUPLICATE: Judy the London painter likes oils\.\r\n/);
    const second = foldingJudge();
    expect((await pass(root, second)).summary).toEqual({ skipped: 1 });
    expect(second.calls).toHaveLength(0);
  });

  it('a decision is linked, never folded', async () => {
    const root = tempCorpus();
    const other = note(root, 'postgres', 'PostgreSQL', 'DUPLICATE PostgreSQL notes for the booking service.');
    const decision = note(root, 'use-postgres', 'Use PostgreSQL', 'DUPLICATE We chose PostgreSQL for the booking service.', { kind: 'decision' });
    const llm = foldingJudge('PostgreSQL');
    const r = await pass(root, llm);
    expect(r.rows.find((x) => x.note === decision.path)).toMatchObject({ action: 'linked', links: [other.path] });
    expect(fs.existsSync(decision.file)).toBe(true);
    expect(llm.calls.map((c) => judged(c.messages).memory)).not.toContainEqual(expect.stringContaining('kind: decision'));
  });

  it('no note of a split family is folded into another, whatever the judge proposes; the refusal is traced', async () => {
    const root = tempCorpus();
    const big = note(root, 'judy', 'Judy', 'Judy paints.\n\nJudy sails.');
    const s = await splitNote(root, big.path, {
      llm: stubLlm({
        record_split_decision: () => ({
          split: true,
          parent_summary: 'DUPLICATE Judy paints and sails.',
          fragments: [
            { title: 'Judy paints', slug: 'judy-paints', content: 'DUPLICATE Judy paints.', kind: 'concept' },
            { title: 'Judy sails', slug: 'judy-sails', content: 'DUPLICATE Judy sails.', kind: 'concept' },
          ],
        }),
      }),
    });
    const family = [s.parent!, ...s.children];
    // The judge folds every duplicate into the first other member of the family it is shown.
    const llm = stubLlm({
      record_merge_decision: (m) => {
        const { memory, shown } = judged(m);
        const target = memory.includes('DUPLICATE') ? shown.find((x) => family.some((f) => f.uuid === x.id)) : undefined;
        return target ? { action: 'merge', target: target.id, reason: 'same' } : { action: 'create', target: '', reason: 'separate' };
      },
    });
    const r = await pass(root, llm);
    expect(r.summary.merged).toBeUndefined();
    for (const f of family) expect(read(f).startsWith(f.raw)).toBe(true);
    expect(fs.readdirSync(path.join(root, '.archive'))).toEqual([big.path]);
    const events = fs
      .readFileSync(path.join(root, '.zk/trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const refused = events.filter((e) => e.event === 'fold_refused');
    expect(refused.map((e) => e.note).sort()).toEqual(family.map((f) => f.path).sort());
    for (const e of refused) {
      expect(family.map((f) => f.path)).toContain(e.target);
      expect(e.reason).toMatch(new RegExp(`both are parts of one split \\(${s.parent!.uuid}\\)`));
    }
    for (const f of family) expect(r.rows.find((x) => x.note === f.path)?.reason).toMatch(/^refused to fold /);
    fs.rmSync(root, { recursive: true });
  });

  it('an LLM failure fails that row only; the pass goes on and the note is tried again next time', async () => {
    const root = tempCorpus();
    const a = note(root, SOURDOUGH[0].slug, SOURDOUGH[0].title, `${SOURDOUGH[0].body} BROKEN.`);
    const b = note(root, SOURDOUGH[1].slug, SOURDOUGH[1].title, SOURDOUGH[1].body);
    const flaky = stubLlm({ record_merge_decision: (m) => (judged(m).memory.includes('BROKEN') ? null : { action: 'create', target: '', reason: 'x' }) });
    const r = await pass(root, flaky);
    expect(r.rows.filter((x) => x.action !== 'skipped').map((x) => [x.note, x.action])).toEqual([
      [b.path, 'linked'],
      [a.path, 'failed'],
    ]);
    expect(r.errors.map((e) => e.exitCode)).toEqual([3]);
    const again = foldingJudge();
    const r2 = await pass(root, again);
    expect(r2.rows.filter((x) => x.action !== 'skipped').map((x) => x.note)).toEqual([a.path]);
    expect(again.calls).toHaveLength(1);
  });

  it('--dry-run writes nothing of the corpus', async () => {
    const root = tempCorpus();
    const judy = note(root, 'judy', 'Judy', 'Judy is a painter who lives in London.');
    const dup = note(root, 'judy-again', 'Judy again', 'DUPLICATE: Judy the London painter.');
    note(root, 'painters', 'Painters', 'A list of painters in London.');
    const before = snapshot(root, { skip: /^\.zk\/index/ });
    const r = await pass(root, foldingJudge(), { dryRun: true, splitSweep: 2, backend: 'fts' });
    // Nothing of the corpus changes; the derived search index may be brought up to date.
    expect(snapshot(root, { skip: /^\.zk\/index/ })).toEqual(before);
    expect(r.dryRun).toBe(true);
    expect(r.rows.find((x) => x.note === dup.path && x.stage === 'tend')).toMatchObject({ action: 'merged', target: judy.path });
    expect(r.rows.filter((x) => x.stage === 'split').map((x) => x.action)).toEqual(['kept', 'kept']);
  });
});

describe('the Related section', () => {
  const target = { title: 'Kayak [club]', path: '20260101-kayak-club.md', uuid: 'AAAAAAAA-1111-4111-8111-111111111111' };
  const link = '- [Kayak (club)](20260101-kayak-club.md) <!-- uuid: aaaaaaaa-1111-4111-8111-111111111111 -->';

  it('is extended in place before a later merge fragment, keeps CRLF line endings, and ignores one inside code', () => {
    const root = tempCorpus();
    fs.writeFileSync(path.join(root, 'a.md'), '# A\n\n```\n## Related\n```\n\n## Related\n\n- [B](b.md)\n\n---\n*2026-01-01:* later.\n');
    fs.writeFileSync(path.join(root, 'crlf.md'), '---\r\nuuid: 22222222-2222-4222-8222-222222222222\r\n---\r\n# C\r\n\r\nText.');
    const a = addRelated(readNoteFile(root, 'a.md')!, [target, target]);
    expect(a.text).toBe(`# A\n\n\`\`\`\n## Related\n\`\`\`\n\n## Related\n\n- [B](b.md)\n${link}\n\n---\n*2026-01-01:* later.\n`);
    expect(a.added).toEqual([target]);
    const c = addRelated(readNoteFile(root, 'crlf.md')!, [target]);
    expect(c.text).toBe(`---\r\nuuid: 22222222-2222-4222-8222-222222222222\r\n---\r\n# C\r\n\r\nText.\r\n\r\n## Related\r\n\r\n${link}\r\n`);
    fs.writeFileSync(path.join(root, 'crlf.md'), c.text);
    expect(addRelated(readNoteFile(root, 'crlf.md')!, [target, { title: 'C', path: 'crlf.md', uuid: '' }]).added).toEqual([]);
  });
});
