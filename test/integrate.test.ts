import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadNotes } from '../src/corpus/note/notes.js';
import { writeNote } from '../src/corpus/ops/write.js';
import { integrate, toCandidate } from '../src/pipelines/integrate.js';
import { drain, retain } from '../src/pipelines/retain.js';
import { inboxFiles } from '../src/pipelines/inbox.js';
import { candidate, conversationOf, shownIds, stubLlm } from './helpers/llm-stub.js';
import { tempCorpus } from './helpers/corpus.js';
import { MOMENT } from './helpers/moments.js';

const rg = { backend: 'rg' };

function corpusWithJudy() {
  const root = tempCorpus();
  const judy = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy is a painter who lives in London.' });
  writeNote(root, { slug: 'garden', title: 'Garden', body: 'Tomatoes and basil in the garden.' });
  return { root, judy };
}

describe('integrate', () => {
  it('creates when nothing matches, without asking the judge', async () => {
    const { root } = corpusWithJudy();
    const llm = stubLlm({});
    const r = await integrate(root, toCandidate({ content: 'Quasars are bright.', topic: 'quasar', title: 'Quasars' }), { llm, ...rg });
    expect(r.action).toBe('created');
    expect(r.note.title).toBe('Quasars');
    expect(llm.calls).toHaveLength(0);
  });

  it('merges into a hit the judge was shown', async () => {
    const { root, judy } = corpusWithJudy();
    const llm = stubLlm({ record_merge_decision: (m) => ({ action: 'merge', target: shownIds(m)[0], reason: 'same person' }) });
    const r = await integrate(root, toCandidate({ content: 'Judy prefers oil paints.', topic: 'Judy painter' }), { llm, ...rg, source: 'chef' });
    expect(r.action).toBe('merged');
    expect(r.note.path).toBe(judy.path);
    expect(fs.readFileSync(judy.file, 'utf8')).toMatch(new RegExp(`\\n\\n---\\n\\*${MOMENT} \\(chef\\):\\* Judy prefers oil paints\\.\\n$`));
    expect(shownIds(llm.calls[0].messages)).toContain(judy.uuid);
    expect(loadNotes(root)).toHaveLength(2);
  });

  it('a hallucinated target falls back to create', async () => {
    const { root, judy } = corpusWithJudy();
    const before = fs.readFileSync(judy.file, 'utf8');
    const llm = stubLlm({ record_merge_decision: () => ({ action: 'merge', target: '99999999-0000-0000-0000-000000000000', reason: 'made up' }) });
    const r = await integrate(root, toCandidate({ content: 'Judy likes jazz.', topic: 'Judy', title: 'Judy and jazz' }), { llm, ...rg });
    expect(r.action).toBe('created');
    expect(r.note.title).toBe('Judy and jazz');
    expect(fs.readFileSync(judy.file, 'utf8')).toBe(before);
    const line = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.event === 'integrate');
    expect(line).toMatchObject({ action: 'created', model: 'stub-model', prompt_version: expect.any(String), shown: [judy.path] });
    expect(line.reason).toMatch(/not among the shown notes/);
  });

  it('supersedes a shown note when the judge says the claim changed', async () => {
    const { root, judy } = corpusWithJudy();
    const llm = stubLlm({ record_merge_decision: (m) => ({ action: 'supersede', target: shownIds(m)[0], reason: 'moved' }) });
    const r = await integrate(root, toCandidate({ content: 'Judy moved to Paris.', topic: 'Judy', title: 'Judy in Paris' }), { llm, ...rg });
    expect(r.action).toBe('superseded');
    expect(r.target?.path).toBe(judy.path);
    expect(r.target?.superseded_by).toBe(r.note.uuid);
    expect(r.note.supersedes).toEqual([judy.uuid]);
  });

  it('decisions never merge and keep choice, alternatives and rationale', async () => {
    const { root } = corpusWithJudy();
    writeNote(root, { slug: 'db', title: 'Database choice', body: 'We looked at databases.' });
    const llm = stubLlm({ record_merge_decision: (m) => ({ action: 'merge', target: shownIds(m)[0], reason: 'x' }) });
    const r = await integrate(
      root,
      toCandidate({
        content: 'For the booking service.',
        topic: 'database',
        title: 'Use PostgreSQL',
        kind: 'decision',
        choice: 'PostgreSQL',
        alternatives: ['MySQL', 'SQLite'],
        rationale: 'the team knows it',
      }),
      { llm, ...rg },
    );
    expect(r.action).toBe('created');
    expect(llm.calls).toHaveLength(0);
    expect(fs.readFileSync(r.note.file, 'utf8')).toContain(
      '# Use PostgreSQL\n\n**Decision:** PostgreSQL\n\nFor the booking service.\n\n**Alternatives considered:**\n- MySQL\n- SQLite\n\n**Rationale:** the team knows it\n',
    );
    expect(r.note.kind).toBe('decision');
  });

  it('fails cleanly (nothing written) when the judge cannot answer', async () => {
    const { root } = corpusWithJudy();
    const llm = stubLlm({ record_merge_decision: () => null });
    await expect(integrate(root, toCandidate({ content: 'Judy again.', topic: 'Judy' }), { llm, ...rg })).rejects.toMatchObject({
      code: 'llm_failed',
      exitCode: 3,
    });
    expect(loadNotes(root)).toHaveLength(2);
  });
});

describe('retain', () => {
  const create = { record_merge_decision: () => ({ action: 'create', target: '', reason: 'new' }) };

  it('repairs an unknown kind to concept and makes two notes of two candidates with one slug', async () => {
    const root = tempCorpus();
    const llm = stubLlm({
      ...create,
      record_candidates: () => ({
        worth_retaining: true,
        candidates: [
          candidate({ kind: 'fact', topic: 'kayak', title: 'Kayak trip', slug: 'kayak', content: 'We kayaked to the glacier.' }),
          candidate({ topic: 'kayak club', title: 'Kayak club', slug: 'kayak', content: 'The kayak club meets on Sundays.' }),
        ],
      }),
    });
    const r = await retain(root, { turn: { user: 'We went kayaking.', assistant: 'Nice!' } }, { llm, ...rg });
    expect(r.spooled).toBeNull();
    expect(r.results.map((x) => [x.action, x.kind, x.title])).toEqual([
      ['created', 'concept', 'Kayak trip'],
      ['created', 'concept', 'Kayak club'],
    ]);
    expect(r.results.map((x) => x.note!.path).sort()).toEqual([expect.stringMatching(/^\d{8}-kayak-2\.md$/), expect.stringMatching(/^\d{8}-kayak\.md$/)]);
    const lines = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const judged = lines.find((l) => Array.isArray(l.repairs) && l.repairs.length);
    expect(judged.repairs).toEqual([expect.stringMatching(/kind: "fact" is not a kind; read as concept$/)]);
  });

  it('an empty distillation is a valid "nothing worth keeping"', async () => {
    const root = tempCorpus();
    const llm = stubLlm({ record_candidates: () => ({ worth_retaining: false, candidates: [] }) });
    const r = await retain(root, { turn: { user: 'hi', assistant: 'hello' } }, { llm, ...rg });
    expect(r).toEqual({ results: [], spooled: null });
    expect(loadNotes(root)).toHaveLength(0);
  });

  it('distills system and tool messages out, and strips injected recall blocks', async () => {
    const root = tempCorpus();
    const seen: string[] = [];
    const llm = stubLlm({ record_candidates: (m) => (seen.push(conversationOf(m)), { worth_retaining: false, candidates: [] }) });
    await retain(
      root,
      {
        messages: [
          { role: 'system', content: 'SYSTEM-SECRET' },
          { role: 'user', content: '<recall>OLD-MEMORY</recall>My cat is called Miso.' },
          { role: 'tool', content: 'TOOL-OUTPUT' },
          { role: 'assistant', content: [{ type: 'text', text: 'Miso is a lovely name.' }] },
        ],
      },
      { llm, ...rg },
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('My cat is called Miso.');
    expect(seen[0]).toContain('Miso is a lovely name.');
    for (const hidden of ['SYSTEM-SECRET', 'OLD-MEMORY', 'TOOL-OUTPUT']) expect(seen[0]).not.toContain(hidden);
  });

  it('distills 300,000 characters segment by segment, losing no fact; one failed segment is spooled alone', async () => {
    const root = tempCorpus();
    const paragraphs = Array.from({ length: 600 }, (_, i) => `FACT-${i} is recorded here. ${'Filler words about nothing much. '.repeat(15)}`);
    const transcript = paragraphs.join('\n\n');
    expect(transcript.length).toBeGreaterThan(300_000);
    let failedSegment = '';
    const llm = stubLlm({
      ...create,
      record_candidates: (m, call) => {
        const text = conversationOf(m);
        if (call === 3) {
          failedSegment = text;
          return null;
        }
        const facts = [...text.matchAll(/FACT-\d+/g)].map((x) => x[0]);
        return { worth_retaining: true, candidates: [candidate({ topic: facts[0], title: `Facts from ${facts[0]}`, content: facts.join(' ') })] };
      },
    });
    const r = await retain(root, { transcript }, { llm, ...rg });
    const segments = llm.calls.filter((c) => c.name === 'record_candidates').length;
    expect(segments).toBeGreaterThan(10);
    expect(r.results).toHaveLength(segments - 1);
    expect(r.spooled).toMatch(/^\.zk\/inbox\/[\w-]+\.json$/);
    const spooled = JSON.parse(fs.readFileSync(path.join(root, r.spooled!), 'utf8'));
    expect(spooled.items).toEqual([{ type: 'text', text: failedSegment }]);
    const inNotes = new Set(loadNotes(root).flatMap((n) => [...n.raw.matchAll(/FACT-\d+/g)].map((x) => x[0])));
    const inSpool = new Set([...failedSegment.matchAll(/FACT-\d+/g)].map((x) => x[0]));
    for (let i = 0; i < 600; i++) expect(inNotes.has(`FACT-${i}`) || inSpool.has(`FACT-${i}`), `FACT-${i}`).toBe(true);
    expect(inSpool.size).toBeGreaterThan(0);
    // A later drain with a working model lands the rest and empties the inbox.
    const ok = stubLlm({
      ...create,
      record_candidates: (m) => ({
        worth_retaining: true,
        candidates: [candidate({ topic: 'drained', title: 'Drained facts', content: [...conversationOf(m).matchAll(/FACT-\d+/g)].map((x) => x[0]).join(' ') })],
      }),
    });
    const d = await drain(root, { llm: ok, ...rg });
    expect(d).toMatchObject({ files: 1, done: 1, kept: 0 });
    expect(inboxFiles(root)).toEqual([]);
    const all = new Set(loadNotes(root).flatMap((n) => [...n.raw.matchAll(/FACT-\d+/g)].map((x) => x[0])));
    expect(all.size).toBe(600);
  });

  it('runs in one process never mix their failures: each names its own segments and reasons', async () => {
    const root = tempCorpus();
    const a = stubLlm({ record_candidates: (m) => (conversationOf(m).includes('FAIL') ? null : { worth_retaining: false, candidates: [] }) });
    const b = stubLlm({ record_candidates: () => ({ worth_retaining: true, candidates: [{ kind: 'concept', topic: '', content: '' }] }) });
    const twoOfThree = ['user: FAIL one', 'user: fine', 'user: FAIL two'].map((p) => `${p} ${'padding words here. '.repeat(10)}`).join('\n\n');
    process.env.ZK_MEMORY_SEGMENT_CHARS = '250';
    let ra, rb;
    try {
      [ra, rb] = await Promise.all([
        retain(root, { transcript: twoOfThree }, { llm: a, ...rg }),
        retain(root, { turn: { user: 'Remember my locker is 42.', assistant: 'Noted.' } }, { llm: b, ...rg }),
      ]);
    } finally {
      delete process.env.ZK_MEMORY_SEGMENT_CHARS;
    }
    expect(ra.failure).toBe('2 of 3 segments failed: stub: no answer');
    expect(JSON.parse(fs.readFileSync(path.join(root, ra.spooled!), 'utf8')).items.map((i: { text: string }) => i.text.slice(0, 14))).toEqual([
      'user: FAIL one',
      'user: FAIL two',
    ]);
    expect(rb.failure).toMatch(/^invalid answer twice: /);
    expect(rb.failure).not.toContain('stub: no answer');
    fs.rmSync(root, { recursive: true });
  });

  it('invalid output is retried once, then the input is spooled', async () => {
    const root = tempCorpus();
    const llm = stubLlm({ record_candidates: () => ({ worth_retaining: true, candidates: [{ kind: 'concept', topic: '', content: '' }] }) });
    const r = await retain(root, { turn: { user: 'Remember my locker is 42.', assistant: 'Noted.' } }, { llm, ...rg });
    expect(llm.calls).toHaveLength(2);
    expect(llm.calls[1].messages.map((m) => m.content).join('\n')).toMatch(/content/);
    expect(r.results).toEqual([]);
    expect(r.spooled).toBeTruthy();
    expect(JSON.parse(fs.readFileSync(path.join(root, r.spooled!), 'utf8')).items[0].text).toContain('locker is 42');
  });
});
