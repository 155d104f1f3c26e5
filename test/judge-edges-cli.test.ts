import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import type { ChatMessage } from '../src/llm/types.js';
import { notJson, refuse, startFakeLlm } from './helpers/fake-llm-server.js';
import { conversationOf, shownIds } from './helpers/llm-stub.js';
import { mdFiles, tempCorpus, zk } from './helpers/corpus.js';

// The judge against a misbehaving OpenAI-compatible server, through the command line: each test
// scripts what the server answers, including text that is not JSON and schema-valid nonsense.

type Script = (messages: ChatMessage[], call: number) => unknown;
let distillScript: Script = () => ({ worth_retaining: false, candidates: [] });
let mergeScript: Script = () => ({ action: 'create', target: '', reason: 'separate' });
let splitScript: Script = () => ({ split: false, parent_summary: '', fragments: [] });
const counts: Record<string, number> = {};
const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);

let llm: Awaited<ReturnType<typeof startFakeLlm>>;
const roots: string[] = [];

beforeAll(async () => {
  llm = await startFakeLlm({
    record_candidates: (m) => distillScript(m, count('record_candidates')),
    record_merge_decision: (m) => mergeScript(m, count('record_merge_decision')),
    record_split_decision: (m) => splitScript(m, count('record_split_decision')),
  });
});
afterAll(() => llm.close());
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
  for (const k of Object.keys(counts)) delete counts[k];
  llm.calls.splice(0);
});

function corpus(): string {
  const root = tempCorpus();
  roots.push(root);
  return root;
}

const run = (root: string, args: string[], o: { input?: string; env?: Record<string, string> } = {}) =>
  zk(['--root', root, ...args], { env: { ...llm.env, ...o.env }, input: o.input });

function traceEvents(root: string): any[] {
  return fs
    .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

function inbox(root: string): any[] {
  const dir = path.join(root, '.zk', 'inbox');
  return fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

const miso = { kind: 'entity_update', topic: 'cat', title: 'Cat Miso', slug: 'cat-miso', content: 'The cat of the household is called Miso.' };

describe('an answer that is not JSON', () => {
  it('is asked for once more, told it was not valid JSON, and the second answer lands', async () => {
    const root = corpus();
    distillScript = (_m, n) => (n === 1 ? notJson('this is {not json') : { worth_retaining: true, candidates: [miso] });
    const r = await run(root, ['--json', 'retain', 'My cat is called Miso.', 'Nice!', '--backend', 'rg']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.results).toMatchObject([{ action: 'created', title: 'Cat Miso' }]);
    const asked = llm.calls.filter((c) => c.name === 'record_candidates');
    expect(asked).toHaveLength(2);
    expect(asked[1].messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^Your answer was not valid JSON\./) });
    expect(traceEvents(root).find((e) => e.event === 'judge')).toMatchObject({ ok: true, attempts: 2, not_json: expect.stringContaining('this is {not json') });
  });

  it('twice fails the call: exit 3, the input kept in the inbox, no note', async () => {
    const root = corpus();
    distillScript = () => notJson('still {not json');
    const r = await run(root, ['retain', 'My cat is called Miso.', 'Nice!', '--backend', 'rg']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: no JSON answer twice: tool call arguments are not a JSON object: still \{not json; input kept in \.zk\/inbox\//);
    expect(llm.calls.filter((c) => c.name === 'record_candidates')).toHaveLength(2);
    expect(mdFiles(root)).toEqual([]);
    expect(inbox(root)).toHaveLength(1);
  });

  it('a refusal by the server is not asked again by the judge', async () => {
    const root = corpus();
    distillScript = () => refuse(400, { error: { code: 'context_length_exceeded', message: 'too many tokens' } });
    const r = await run(root, ['retain', 'My cat is called Miso.', 'Nice!']);
    expect(r.code).toBe(3);
    expect(llm.calls).toHaveLength(1);
  });
});

describe('schema-valid nonsense', () => {
  it('never becomes a note: debris and punctuation are dropped, and the drops are traced', async () => {
    const root = corpus();
    distillScript = () => ({
      worth_retaining: false,
      candidates: [
        { kind: 'concept', topic: 'run', title: '} run,]', slug: 'run', content: '} run,]' },
        { kind: 'concept', topic: '?', title: '?!', slug: '', content: '...' },
      ],
    });
    const r = await run(root, ['--json', 'retain', 'hm', 'ok', '--backend', 'rg']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, results: [], spooled: null });
    expect(mdFiles(root)).toEqual([]);
    const judged = traceEvents(root).find((e) => e.event === 'judge');
    expect(judged.repairs).toEqual([
      'candidates/0: dropped, its title "} run,]" is mostly JSON syntax',
      'candidates/1: dropped, its title "?!" has no letters or digits',
    ]);
  });

  it('worth_retaining false beside a real memory keeps it, and the trace says which reading was taken', async () => {
    const root = corpus();
    distillScript = () => ({ worth_retaining: false, candidates: [miso] });
    const r = await run(root, ['--json', 'retain', 'My cat is called Miso.', 'Nice!', '--backend', 'rg']);
    expect(r.json.results).toMatchObject([{ action: 'created', title: 'Cat Miso' }]);
    expect(traceEvents(root).find((e) => e.event === 'judge').repairs).toEqual([
      'worth_retaining: false beside 1 candidate(s) that look like real memories; read as true, the candidates kept',
    ]);
  });
});

describe('a multi-part retain that fails', () => {
  it('names how many segments failed and each distinct reason, and the inbox keeps exactly those segments', async () => {
    const root = corpus();
    const paragraph = (word: string) => `user: ${word} ${'and the rest of this paragraph is padding. '.repeat(3)}`;
    const transcript = [paragraph('REFUSE one'), paragraph('My cat is called Miso.'), paragraph('GARBLE two'), paragraph('REFUSE three')].join('\n\n');
    distillScript = (m) => {
      const text = conversationOf(m);
      if (text.includes('REFUSE')) return refuse(400, { error: { code: 'context_length_exceeded', message: 'too many tokens' } });
      if (text.includes('GARBLE')) return notJson('} run,]');
      return { worth_retaining: true, candidates: [miso] };
    };
    const r = await run(root, ['--json', 'retain', '--transcript', '-', '--backend', 'rg'], { input: transcript, env: { ZK_MEMORY_SEGMENT_CHARS: '200' } });
    expect(r.code).toBe(3);
    expect(r.json.results).toMatchObject([{ action: 'created', title: 'Cat Miso' }]);
    const message: string = r.json.error.message;
    expect(message).toMatch(/^3 of 4 segments failed: HTTP 400: .*context_length_exceeded.*; no JSON answer twice: .*; input kept in \.zk\/inbox\//);
    expect(message.match(/context_length_exceeded/g)).toHaveLength(1);
    const [kept] = inbox(root);
    expect(kept.items.map((i: { text: string }) => /(REFUSE one|GARBLE two|REFUSE three)/.exec(i.text)?.[1])).toEqual([
      'REFUSE one',
      'GARBLE two',
      'REFUSE three',
    ]);
    expect(kept.reason).toBe(message.replace(/; input kept in .*$/, ''));
  });
});

describe('split families and decision children', () => {
  it('a decision child has the decision template, no family member folds into another, and read --json names link uuids', async () => {
    const root = corpus();
    const big = writeNote(root, { slug: 'rollout', title: 'Rollout', body: 'We release on Tuesdays.\n\nWe chose blue-green over canary: fastest rollback.' });
    splitScript = () => ({
      split: true,
      parent_summary: 'How the booking service rolls out.',
      fragments: [
        { title: 'Release day', slug: 'release-day', content: 'We release on Tuesdays.', kind: 'concept' },
        {
          title: 'Rollback: blue-green',
          slug: 'rollback',
          content: 'The booking service rolls back by switching traffic.',
          kind: 'decision',
          choice: 'blue-green',
          alternatives: ['canary'],
          rationale: 'fastest rollback',
        },
      ],
    });
    const s = await run(root, ['--json', 'split', big.path]);
    expect(s.code, s.stderr).toBe(0);
    const [release, rollback] = s.json.children;
    const body = fs.readFileSync(path.join(root, rollback.path), 'utf8');
    expect(body).toContain(
      '**Decision:** blue-green\n\nThe booking service rolls back by switching traffic.\n\n**Alternatives considered:**\n- canary\n\n**Rationale:** fastest rollback',
    );

    // The judge wants every member of the family folded into another one it is shown.
    mergeScript = (m) => ({ action: 'merge', target: shownIds(m)[0], reason: 'same' });
    const t = await run(root, ['--json', 'tend-writes', '--backend', 'rg']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.json.summary.merged).toBeUndefined();
    expect(mdFiles(root)).toEqual([big.path, release.path, rollback.path].sort());
    const refused = traceEvents(root).filter((e) => e.event === 'fold_refused');
    expect(refused.length).toBeGreaterThan(0);
    for (const e of refused) expect(e.reason).toMatch(new RegExp(`both are parts of one split \\(${s.json.parent.uuid}\\)`));

    // A child's link back to the parent reports the parent's uuid; a stale anchor keeps its own.
    const read = await run(root, ['--json', 'read', release.path]);
    expect(read.json.links).toContainEqual(expect.objectContaining({ target: big.path, uuid: s.json.parent.uuid, resolved: true }));
    expect(read.json.links[0].anchor_uuid).toBeUndefined();
    const plain = writeNote(root, { slug: 'fan', title: 'Fan', body: `[Rollout](${big.path}) and [old](${big.path}) <!-- uuid: ${big.uuid} -->` });
    const fan = await run(root, ['--json', 'read', plain.path]);
    expect(fan.json.links.map((l: any) => [l.uuid, l.anchor_uuid ?? null])).toEqual([
      [s.json.parent.uuid, null],
      [s.json.parent.uuid, big.uuid],
    ]);
  });
});
