import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationOf, shownIds } from './helpers/llm-stub.js';
import { closedBase, refuse, startFakeLlm } from './helpers/fake-llm-server.js';
import { mdFiles, snapshot, tempCorpus, zk } from './helpers/corpus.js';
import { MOMENT } from './helpers/moments.js';

let llm: Awaited<ReturnType<typeof startFakeLlm>>;
let failDistill = false;

beforeAll(async () => {
  llm = await startFakeLlm({
    record_candidates: (m) => {
      if (failDistill) return null;
      const text = conversationOf(m);
      const cat = /cat is called (\w+)/.exec(text);
      return {
        worth_retaining: Boolean(cat),
        candidates: cat ? [{ kind: 'entity_update', topic: 'cat', title: `Cat ${cat[1]}`, slug: '', content: `The cat is called ${cat[1]}.` }] : [],
      };
    },
    record_merge_decision: (m) => ({ action: 'merge', target: shownIds(m)[0], reason: 'same cat' }),
  });
});

afterAll(() => llm.close());

describe('retain and integrate from the command line', () => {
  it('retains a turn, then merges a later fact into the same note', async () => {
    const root = tempCorpus();
    const a = await zk(['--root', root, '--json', 'retain', 'My cat is called Miso.', 'What a nice name!', '--backend', 'rg'], { env: llm.env });
    expect(a.code).toBe(0);
    expect(a.json).toMatchObject({ ok: true, spooled: null, results: [{ action: 'created', kind: 'entity_update', title: 'Cat Miso' }] });
    const b = await zk(['--root', root, '--json', 'integrate', 'The cat sleeps on the piano.', '--topic', 'cat', '--source', 'phone', '--backend', 'rg'], {
      env: llm.env,
    });
    expect(b.json).toMatchObject({ ok: true, action: 'merged', note: { path: a.json.results[0].note.path } });
    expect(fs.readFileSync(path.join(root, b.json.note.path), 'utf8')).toMatch(/\(phone\):\* The cat sleeps on the piano\.\n$/);
    const trace = fs.readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8');
    expect(trace).toContain('"model":"fake-model"');
  });

  it('without an LLM: exit 3, the input kept in the inbox, and retain --drain lands it later', async () => {
    const root = tempCorpus();
    const r = await zk(['--root', root, '--json', 'retain', 'My cat is called Tofu.', 'Cute.']);
    expect(r.code).toBe(3);
    expect(r.json.ok).toBe(false);
    expect(r.json.error.code).toBe('llm_unconfigured');
    expect(r.json.spooled).toMatch(/^\.zk\/inbox\/.+\.json$/);
    expect(mdFiles(root)).toEqual([]);
    // With no note like it, integrate needs no judge, so no LLM: the note is written at once.
    const i = await zk(['--root', root, '--json', 'integrate', 'Tofu likes tuna.', '--topic', 'cat', '--backend', 'rg']);
    expect(i.json).toMatchObject({ ok: true, action: 'created', reason: 'no existing note was found' });
    // Now a note like it exists, so placing another fact needs the judge: kept in the inbox.
    const j = await zk(['--root', root, 'integrate', 'Tofu sleeps a lot.', '--topic', 'Tofu', '--backend', 'rg']);
    expect(j.code).toBe(3);
    expect(j.stderr).toMatch(/^error: no LLM configured: .* \(kept in \.zk\/inbox\/.+\.json for retain --drain\)$/);
    // A decision never merges, so it needs no judge either.
    const dec = await zk([
      '--root',
      root,
      '--json',
      'integrate',
      'We feed Tofu twice a day.',
      '--kind',
      'decision',
      '--title',
      'Feeding twice a day',
      '--backend',
      'rg',
    ]);
    expect(dec.json).toMatchObject({ ok: true, action: 'created', note: { kind: 'decision' } });
    const d = await zk(['--root', root, '--json', 'retain', '--drain', '--backend', 'rg'], { env: llm.env });
    expect(d.code).toBe(0);
    expect(d.json).toMatchObject({ ok: true, drained: 2, kept: 0, files: 2 });
    expect(fs.readdirSync(path.join(root, '.zk', 'inbox'))).toEqual([]);
    // The drained turn and the parked fact both found the note integrate had written, and were merged into it.
    expect(mdFiles(root)).toHaveLength(2);
    const cat = i.json.note.path;
    const text = fs.readFileSync(path.join(root, cat), 'utf8');
    expect(text).toContain('Tofu likes tuna.');
    expect(text).toMatch(new RegExp(`\\n---\\n\\*${MOMENT}:\\* The cat is called Tofu\\.\\n`));
    expect(text).toMatch(new RegExp(`\\n---\\n\\*${MOMENT}:\\* Tofu sleeps a lot\\.\\n`));
  });

  it('retain --drain sets an inbox file that is JSON but not an entry aside, and drains the others', async () => {
    const root = tempCorpus();
    const r = await zk(['--root', root, '--json', 'retain', 'My cat is called Pip.', 'Sweet.']);
    expect(r.code).toBe(3);
    const inbox = path.join(root, '.zk', 'inbox');
    fs.writeFileSync(path.join(inbox, '20000101T000000000Z-null.json'), 'null\n');
    fs.writeFileSync(path.join(inbox, '20000101T000000000Z-items.json'), '{"items":5}\n');
    const d = await zk(['--root', root, '--json', 'retain', '--drain', '--backend', 'rg'], { env: llm.env });
    expect(d.code, d.stdout).toBe(0);
    expect(d.json).toMatchObject({ ok: true, drained: 1, kept: 0 });
    expect(fs.readdirSync(inbox).sort()).toEqual(['20000101T000000000Z-items.json.unreadable', '20000101T000000000Z-null.json.unreadable']);
    expect(mdFiles(root)).toHaveLength(1);
  });

  it('a dead or failing LLM spools the input with exit 3 and changes no note', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'keep', 'Keep', 'Untouched.']);
    const before = snapshot(root, { skip: /^\.zk\// });
    failDistill = true;
    try {
      const r = await zk(['--root', root, 'retain', '--transcript', '-'], { env: llm.env, input: 'user: My cat is called Pip.\n' });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(/^error: .*input kept in \.zk\/inbox\/.+\.json \(retry with retain --drain\)$/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    } finally {
      failDistill = false;
    }
    const dead = await zk(['--root', root, 'retain', 'My cat is called Rex.', 'ok'], { env: { ...llm.env, ZK_MEMORY_LLM_BASE: 'http://127.0.0.1:9/v1' } });
    expect(dead.code).toBe(3);
    expect(snapshot(root, { skip: /^\.zk\// })).toEqual(before);
    expect(fs.readdirSync(path.join(root, '.zk', 'inbox'))).toHaveLength(2);
  });

  it('bad input is a usage error', async () => {
    const root = tempCorpus();
    const cases: [string[], string][] = [
      [['retain'], 'error: retain takes one input: USER ASSISTANT, --messages FILE or --transcript FILE'],
      [['retain', 'only user'], 'error: retain USER ASSISTANT needs both what the user said and the answer'],
      [['retain', '--messages', '-'], 'error: --messages -: not JSON'],
      [['retain', '--messages', path.join(root, 'nope.json')], `error: cannot read ${path.join(root, 'nope.json')}: ENOENT`],
      [['integrate', '  ', '--topic', 'x'], 'error: empty content: nothing to integrate'],
      [['integrate', 'x', '--kind', 'idea'], 'error: unknown kind: "idea" (one of concept, entity_update, decision)'],
    ];
    for (const [args, message] of cases) {
      const r = await zk(['--root', root, ...args], { env: llm.env, input: args.includes('-') ? '{not json' : undefined });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().startsWith(message), r.stderr).toBe(true);
    }
    expect(mdFiles(root)).toEqual([]);
  });
});

describe('retain and integrate with the LLM endpoint unreachable', () => {
  const inbox = (root: string) => {
    const dir = path.join(root, '.zk', 'inbox');
    return Object.fromEntries(
      fs
        .readdirSync(dir)
        .sort()
        .map((f) => [f, JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).items]),
    );
  };
  /** A server that refuses every call with this status, and counts the calls. */
  const refusing = (status: number) =>
    startFakeLlm({ record_candidates: () => refuse(status, { error: 'no key' }), record_merge_decision: () => refuse(status, { error: 'no key' }) });

  it('retain --drain stops at the first item: exit 3, one line naming the endpoint, every inbox file kept', async () => {
    const root = tempCorpus();
    for (const pet of ['Pip', 'Rex']) expect((await zk(['--root', root, 'retain', `My cat is called ${pet}.`, 'Sweet.'])).code).toBe(3);
    const before = inbox(root);
    expect(Object.keys(before)).toHaveLength(2);

    const base = await closedBase();
    const closed = await zk(['--root', root, 'retain', '--drain', '--backend', 'rg'], {
      env: { ...llm.env, ZK_MEMORY_LLM_BASE: base, ZK_MEMORY_LLM_RETRIES: '3' },
    });
    expect(closed.code).toBe(3);
    expect(closed.stderr).toBe(
      `error: LLM endpoint ${base}/chat/completions unreachable: connection refused (ECONNREFUSED); the drain stopped, and the rest stays in the inbox`,
    );
    expect(inbox(root)).toEqual(before);

    for (const status of [401, 403]) {
      const server = await refusing(status);
      try {
        const r = await zk(['--root', root, '--json', 'retain', '--drain', '--backend', 'rg'], { env: server.env });
        expect(r.code).toBe(3);
        expect(r.json).toMatchObject({
          ok: false,
          drained: 0,
          error: { code: 'llm_unreachable', message: expect.stringContaining(`unreachable: HTTP ${status}, `) },
        });
        expect(server.calls).toHaveLength(1);
      } finally {
        await server.close();
      }
    }
    expect(inbox(root)).toEqual(before);
    const d = await zk(['--root', root, '--json', 'retain', '--drain', '--backend', 'rg'], { env: llm.env });
    expect(d.json).toMatchObject({ ok: true, drained: 2, kept: 0 });
  });

  it('retain makes one call for a transcript of many segments and keeps it all; integrate keeps its memory, code llm_unreachable', async () => {
    const root = tempCorpus();
    await zk(['--root', root, 'write', 'cat', 'Cat Tofu', 'The cat Tofu likes tuna.']);
    const transcript = Array.from({ length: 6 }, (_, i) => `user: fact ${i}: ${'the cat naps in the sun. '.repeat(12)}`).join('\n\n');
    const server = await refusing(401);
    try {
      const env = { ...server.env, ZK_MEMORY_SEGMENT_CHARS: '400' };
      const r = await zk(['--root', root, '--json', 'retain', '--transcript', '-', '--backend', 'rg'], { env, input: transcript });
      expect(r.code).toBe(3);
      expect(r.json.error).toEqual({
        code: 'llm_unreachable',
        message: expect.stringMatching(/^LLM endpoint .+ unreachable: HTTP 401, .+; input kept in \.zk\/inbox\/.+\.json \(retry with retain --drain\)$/),
      });
      expect(server.calls).toHaveLength(1);
      const kept = inbox(root)[path.basename(r.json.spooled)];
      expect(kept.length).toBeGreaterThan(1);
      for (let i = 0; i < 6; i++)
        expect(
          kept.some((item: { text: string }) => item.text.includes(`fact ${i}:`)),
          `fact ${i}`,
        ).toBe(true);

      const i = await zk(['--root', root, '--json', 'integrate', 'Tofu sleeps a lot.', '--topic', 'cat Tofu', '--backend', 'rg'], { env });
      expect(i.code).toBe(3);
      expect(i.json.error).toMatchObject({
        code: 'llm_unreachable',
        message: expect.stringMatching(/ unreachable: HTTP 401, .+ \(kept in \.zk\/inbox\/.+\.json for retain --drain\)$/),
      });
      expect(inbox(root)[path.basename(i.json.error.spooled)]).toEqual([
        expect.objectContaining({ type: 'candidate', candidate: expect.objectContaining({ content: 'Tofu sleeps a lot.' }) }),
      ]);
      expect(server.calls).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
