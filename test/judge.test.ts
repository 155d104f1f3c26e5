import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import { candidateNoteName, distill, distillSegments } from '../src/judge/distill.js';
import { judgeMerge, shownNote, verifyMergeDecision } from '../src/judge/merge.js';
import { PROMPT_VERSION, type ShownNote } from '../src/judge/prompts.js';
import type { Candidate } from '../src/judge/schemas.js';
import { judgeSplit } from '../src/judge/split.js';
import type { ChatMessage, StructuredCallOptions, StructuredLLM } from '../src/llm/types.js';
import { tempCorpus } from './helpers/corpus.js';
import { stubLlm, Unparseable } from './helpers/llm-stub.js';

interface Call {
  messages: ChatMessage[];
  options: StructuredCallOptions;
}

/** A StructuredLLM that answers from a script and remembers what it was asked. */
function stub(answers: (Record<string, unknown> | null | string)[], model = 'stub-model') {
  const calls: Call[] = [];
  const llm = Object.assign(
    async (messages: ChatMessage[], options: StructuredCallOptions) => {
      calls.push({ messages, options });
      const a = answers[calls.length - 1];
      if (a === undefined) throw new Error('unexpected call');
      if (a === null || typeof a === 'string') {
        options.onFailure?.(typeof a === 'string' ? a : 'no answer');
        return null;
      }
      return structuredClone(a);
    },
    { model },
  ) as StructuredLLM;
  return { llm, calls };
}

function traceLines(root: string): any[] {
  const file = path.join(root, '.zk', 'trace.jsonl');
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
}

const judy = {
  kind: 'concept',
  topic: 'Judy',
  title: 'Judy paints sunrises',
  slug: 'judy-paints-sunrises',
  content: 'Judy Chen paints lake sunrises at dawn.',
};
const decision = {
  kind: 'decision',
  topic: 'rollback strategy',
  title: 'Rollback: blue-green',
  slug: 'rollback-blue-green',
  content: 'The booking service rolls back by switching traffic.',
  choice: 'blue-green',
  alternatives: ['canary'],
  rationale: 'fastest rollback',
};

describe('distill', () => {
  it('accepts a valid answer and traces it with prompt version, model and input hash', async () => {
    const root = tempCorpus();
    const { llm, calls } = stub([{ worth_retaining: true, candidates: [judy, decision] }]);
    const r = await distill(llm, 'user: Judy paints lake sunrises.', { root, today: '2026-11-30' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.candidates).toHaveLength(2);
    expect(r.value.candidates[1]).toMatchObject({ kind: 'decision', choice: 'blue-green', alternatives: ['canary'] });
    expect(r.repairs).toEqual([]);
    expect(calls[0].options.name).toBe('record_candidates');
    expect(calls[0].messages[0].content).toContain('2026-11-30');
    expect(calls[0].messages[1].content).toContain('Judy paints lake sunrises.');
    const [line] = traceLines(root);
    expect(line).toMatchObject({ event: 'judge', call: 'distill', prompt_version: PROMPT_VERSION, model: 'stub-model', ok: true, attempts: 1 });
    expect(line.input_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('takes an empty candidate list as a valid answer', async () => {
    const { llm } = stub([{ worth_retaining: false, candidates: [] }]);
    const r = await distill(llm, 'user: nice weather today');
    expect(r).toMatchObject({ ok: true, value: { worth_retaining: false, candidates: [] } });
  });

  it('repairs harmless slips and traces each repair', async () => {
    const root = tempCorpus();
    const slips = {
      worth_retaining: 'true',
      candidates: [
        { ...judy, kind: 'insight', slug: 'Judy Paints!!', title: 'x'.repeat(300) },
        { ...decision, kind: 'Decision', alternatives: '- canary\n- rolling update' },
        { kind: 'entity_update', topic: 'Judy Chen', title: '', slug: '', content: 'Judy moved to Paris in October 2026.' },
      ],
    };
    const { llm } = stub([slips]);
    const r = await distill(llm, 'user: …', { root });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [a, b, c] = r.value.candidates;
    expect(a.kind).toBe('concept');
    expect(a.slug).toBe('judy-paints');
    expect(a.title).toHaveLength(200);
    expect(b).toMatchObject({ kind: 'decision', alternatives: ['canary', 'rolling update'] });
    expect(c).toMatchObject({ kind: 'entity_update', title: '', slug: '' });
    expect(candidateNoteName(c)).toEqual({ title: 'Judy Chen', slug: 'judy-chen' });
    expect(r.repairs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^candidates\/0\/kind: "insight" is not a kind; read as concept/),
        expect.stringMatching(/^candidates\/0\/title: clipped from 300 to 200/),
        expect.stringMatching(/^candidates\/0\/slug: .* sanitized to "judy-paints"/),
        expect.stringMatching(/^candidates\/1\/kind: "Decision" read as "decision"/),
        expect.stringMatching(/^candidates\/1\/alternatives: text read as a list of 2/),
        expect.stringMatching(/^worth_retaining: "true" read as a boolean/),
      ]),
    );
    const [line] = traceLines(root);
    expect(line.repairs).toEqual(r.repairs);
    expect(line.answer.candidates[0].kind).toBe('insight');
  });

  it('retries an invalid answer once with the validation error, then succeeds', async () => {
    const { llm, calls } = stub([
      { worth_retaining: true, candidates: [{ ...judy, content: '' }] },
      { worth_retaining: true, candidates: [judy] },
    ]);
    const r = await distill(llm, 'user: Judy paints.');
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(calls).toHaveLength(2);
    const followUp = calls[1].messages;
    expect(followUp.slice(0, 2)).toEqual(calls[0].messages);
    expect(followUp[2].role).toBe('assistant');
    expect(followUp[3].content).toMatch(/candidates\/0\/content must NOT have fewer than 1 characters/);
  });

  it('fails after two invalid answers, and a missing title is not repaired', async () => {
    const root = tempCorpus();
    const noTitle = { worth_retaining: true, candidates: [{ ...judy, title: '', slug: '' }] };
    const { llm, calls } = stub([noTitle, noTitle]);
    const r = await distill(llm, 'user: Judy paints.', { root });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(/invalid answer twice: candidates\/0\/title: a concept needs a title/);
    expect(calls).toHaveLength(2);
    expect(traceLines(root)[0]).toMatchObject({ ok: false, attempts: 2, prompt_version: PROMPT_VERSION });
  });

  it('reports a model failure as a value with its reason, without a second call', async () => {
    const { llm, calls } = stub(['HTTP 500 after 4 attempts: boom']);
    const r = await distill(llm, 'user: hi');
    expect(r).toEqual({ ok: false, reason: 'HTTP 500 after 4 attempts: boom', attempts: 1 });
    expect(calls).toHaveLength(1);
  });

  it('asks again once, saying so, when the answer was not JSON at all', async () => {
    const root = tempCorpus();
    const llm = stubLlm({ record_candidates: (_m, n) => (n === 1 ? new Unparseable('this is {not json') : { worth_retaining: true, candidates: [judy] }) });
    const r = await distill(llm, 'user: Judy paints lake sunrises.', { root });
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(llm.calls[1].messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Your answer was not valid JSON\./) });
    expect(llm.calls[1].messages.slice(0, -1)).toEqual(llm.calls[0].messages);
    expect(traceLines(root)[0]).toMatchObject({ ok: true, attempts: 2, not_json: expect.stringContaining('this is {not json') });
    fs.rmSync(root, { recursive: true });
  });

  it('fails after two answers that are not JSON, and never retries a transport failure', async () => {
    const garbled = stubLlm({ record_candidates: () => new Unparseable('nope') });
    expect(await distill(garbled, 'user: hi')).toMatchObject({ ok: false, attempts: 2, reason: expect.stringMatching(/^no JSON answer twice: /) });
    const dead = stubLlm({ record_candidates: () => null });
    expect(await distill(dead, 'user: hi')).toMatchObject({ ok: false, attempts: 1, reason: 'stub: no answer' });
    expect(dead.calls).toHaveLength(1);
  });

  it('drops candidates that are not words, tracing each drop; a real one beside them stays', async () => {
    const root = tempCorpus();
    const debris = { kind: 'concept', topic: 'run', title: '} run,]', slug: 'run', content: 'Judy runs every morning before work.' };
    const dots = { kind: 'concept', topic: 'x', title: 'Dots', slug: 'dots', content: '... ?! —' };
    const { llm } = stub([{ worth_retaining: true, candidates: [debris, judy, dots] }]);
    const r = await distill(llm, 'user: …', { root });
    expect(r).toMatchObject({ ok: true, value: { worth_retaining: true, candidates: [judy] } });
    expect(traceLines(root)[0].repairs).toEqual([
      'candidates/0: dropped, its title "} run,]" is mostly JSON syntax',
      'candidates/2: dropped, its content "... ?! —" has no letters or digits',
    ]);
    fs.rmSync(root, { recursive: true });
  });

  it('reads worth_retaining false beside candidates by whether they look real, and says which reading it took', async () => {
    const real = await distill(stub([{ worth_retaining: false, candidates: [judy] }]).llm, 'user: …');
    expect(real).toMatchObject({ ok: true, value: { worth_retaining: true, candidates: [judy] } });
    expect(real.ok && real.repairs).toEqual(['worth_retaining: false beside 1 candidate(s) that look like real memories; read as true, the candidates kept']);
    const thin = { ...judy, content: 'ok, run' };
    const weak = await distill(stub([{ worth_retaining: false, candidates: [thin] }]).llm, 'user: …');
    expect(weak).toMatchObject({ ok: true, value: { worth_retaining: false, candidates: [] } });
    expect(weak.ok && weak.repairs).toEqual(['worth_retaining: false beside 1 candidate(s) not all like real memories; read as false, the candidates dropped']);
    const mixed = await distill(stub([{ worth_retaining: false, candidates: [judy, { ...judy, title: '}]' }] }]).llm, 'user: …');
    expect(mixed).toMatchObject({ ok: true, value: { worth_retaining: false, candidates: [] } });
    const allDebris = await distill(stub([{ worth_retaining: true, candidates: [{ ...judy, content: '}, {' }] }]).llm, 'user: …');
    expect(allDebris).toMatchObject({ ok: true, value: { worth_retaining: false, candidates: [] } });
  });

  it('distills segment by segment; one failed segment does not take the others down', async () => {
    const { llm, calls } = stub([{ worth_retaining: true, candidates: [judy] }, 'timed out after 1 s', { worth_retaining: false, candidates: [] }]);
    const results = await distillSegments(llm, ['part one', 'part two', 'part three']);
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
    expect(calls[0].messages[1].content).toContain('part 1 of 3');
  });
});

const shown: ShownNote[] = [
  { id: '3f0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a', title: 'Judy', body: '# Judy\n\nJudy Chen, painter.', path: '20261130-judy.md' },
  { id: '20261101-booking', title: 'Booking service', body: '# Booking service', path: '20261101-booking.md' },
];
const update: Candidate = { kind: 'entity_update', topic: 'Judy Chen', title: '', slug: '', content: 'Judy moved to Paris.' };

describe('merge judge', () => {
  it('merges into a shown note, by uuid or by stem', async () => {
    const root = tempCorpus();
    const { llm, calls } = stub([{ action: 'merge', target: shown[0].id, reason: 'same person' }]);
    const r = await judgeMerge(llm, update, shown, { root });
    expect(r).toMatchObject({ ok: true, value: { action: 'merge', target: shown[0] } });
    expect(calls[0].options.name).toBe('record_merge_decision');
    expect(calls[0].messages[1].content).toContain(shown[0].id);
    expect(traceLines(root)[0]).toMatchObject({ call: 'merge', prompt_version: PROMPT_VERSION, result: { action: 'merge', target: shown[0].id } });
    expect(verifyMergeDecision({ action: 'merge', target: '20261101-booking', reason: '' }, shown).target).toBe(shown[1]);
  });

  it('turns a hallucinated target into create', async () => {
    const { llm } = stub([{ action: 'merge', target: 'deadbeef-0000-0000-0000-000000000000', reason: 'looks similar' }]);
    const r = await judgeMerge(llm, update, shown);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.action).toBe('create');
    expect(r.value.target).toBeUndefined();
    expect(r.value.overruled).toMatch(/not among the shown notes/);
  });

  it('never merges a decision, and reads an unknown or target-less action as create', async () => {
    expect(verifyMergeDecision({ action: 'merge', target: shown[0].id, reason: '' }, shown, 'decision').action).toBe('create');
    expect(verifyMergeDecision({ action: 'supersede', target: shown[0].id, reason: '' }, shown, 'decision').action).toBe('supersede');
    const { llm } = stub([
      { action: 'append', target: shown[0].id, reason: '?' },
      { action: 'merge', reason: 'same' },
    ]);
    for (const _ of [1, 2]) {
      const r = await judgeMerge(llm, update, shown);
      expect(r).toMatchObject({ ok: true, value: { action: 'create' } });
    }
  });

  it('offers supersede only when allowed', async () => {
    const { llm, calls } = stub([{ action: 'supersede', target: shown[0].id, reason: 'moved' }]);
    const r = await judgeMerge(llm, update, shown, { allowSupersede: false });
    expect(r).toMatchObject({ ok: true, value: { action: 'create' } });
    expect(JSON.stringify(calls[0].options.schema)).not.toContain('supersede');
    expect(calls[0].messages[0].content).not.toContain('supersede');
  });

  it('creates without asking when nothing was shown', async () => {
    const { llm, calls } = stub([]);
    expect(await judgeMerge(llm, update, [])).toMatchObject({ ok: true, value: { action: 'create' }, attempts: 0 });
    expect(calls).toHaveLength(0);
  });

  it('shows a note by uuid, or by stem when it has none', () => {
    const root = tempCorpus();
    const note = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy paints.' });
    expect(shownNote(note)).toMatchObject({ id: note.uuid, title: 'Judy', path: note.path });
    fs.writeFileSync(path.join(root, 'plain.md'), '# Plain\n\ntext\n');
    expect(shownNote({ ...note, uuid: '', slug: 'plain', path: 'plain.md' }).id).toBe('plain');
  });
});

describe('split judge', () => {
  const note: ShownNote = { id: 'u1', title: 'Judy', body: '# Judy\n\nLots of things.', path: '20261130-judy.md' };
  const fragment = (n: number) => ({ title: `Part ${n}`, slug: `part-${n}`, content: `Fact ${n}.`, kind: 'concept' });

  it('caps the fragments at the maximum and traces the cut', async () => {
    const root = tempCorpus();
    const { llm, calls } = stub([{ split: true, parent_summary: 'Judy, in short.', fragments: [1, 2, 3, 4, 5, 6].map(fragment) }]);
    const r = await judgeSplit(llm, note, 4, { root });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.fragments.map((f) => f.title)).toEqual(['Part 1', 'Part 2', 'Part 3', 'Part 4']);
    expect(r.repairs).toContain('fragments: 6 items, kept the first 4');
    expect((calls[0].options.schema as any).properties.fragments.maxItems).toBe(4);
    expect(traceLines(root)[0]).toMatchObject({ call: 'split', max_fragments: 4, repairs: ['fragments: 6 items, kept the first 4'] });
  });

  it('keeps a note whole when the judge says so, or gives a single fragment', async () => {
    const { llm } = stub([
      { split: false, parent_summary: '', fragments: [] },
      { split: true, parent_summary: 'x', fragments: [fragment(1)] },
    ]);
    expect(await judgeSplit(llm, note)).toMatchObject({ ok: true, value: { split: false, fragments: [] } });
    expect(await judgeSplit(llm, note)).toMatchObject({ ok: true, value: { split: false, fragments: [] } });
  });

  it('needs a summary to split, and repairs fragment kinds and slugs', async () => {
    const { llm, calls } = stub([
      { split: true, parent_summary: '', fragments: [fragment(1), fragment(2)] },
      { split: true, parent_summary: 'Judy.', fragments: [{ ...fragment(1), kind: 'fact', slug: '' }, fragment(2)] },
    ]);
    const r = await judgeSplit(llm, note);
    expect(calls[1].messages.at(-1)?.content).toMatch(/a split needs a summary/);
    expect(r).toMatchObject({ ok: true, attempts: 2, value: { fragments: [{ kind: 'concept', slug: 'part-1' }, { kind: 'concept' }] } });
  });
});
