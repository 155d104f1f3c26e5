import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import type { ChatMessage } from '../src/llm/types.js';
import { closedBase, refuse, startFakeLlm } from './helpers/fake-llm-server.js';
import { mdFiles, snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { SOURDOUGH } from './helpers/subject-pair.js';

/** Fold what says DUPLICATE into the shown note titled Judy; fail on BROKEN; split notes titled Judy. */
const handlers = {
  record_merge_decision: (m: ChatMessage[]) => {
    const text = m.map((x) => x.content).join('\n');
    const memory = /<memory>\n([\s\S]*?)\n<\/memory>/.exec(text)?.[1] ?? '';
    if (memory.includes('BROKEN')) return null;
    const judy = /^id: (.+)\ntitle: Judy$/m.exec(text);
    return memory.includes('DUPLICATE') && judy ? { action: 'merge', target: judy[1], reason: 'same' } : { action: 'create', target: '', reason: 'separate' };
  },
  record_split_decision: (m: ChatMessage[]) =>
    /title: Judy\n/.test(m.at(-1)!.content)
      ? {
          split: true,
          parent_summary: 'Judy paints and sails.',
          fragments: [
            { title: 'Judy paints', slug: 'judy-paints', content: 'Judy paints lakes at sunrise.', kind: 'concept' },
            { title: 'Judy sails', slug: 'judy-sails', content: 'Judy sails on Sundays.', kind: 'concept' },
          ],
        }
      : { split: false, parent_summary: '', fragments: [] },
};

let llm: Awaited<ReturnType<typeof startFakeLlm>>;
beforeAll(async () => {
  llm = await startFakeLlm(handlers);
});
afterAll(() => llm.close());

function corpus() {
  const root = tempCorpus();
  const judy = writeNote(root, {
    slug: 'judy',
    title: 'Judy',
    body: `Judy paints lakes at sunrise. ${'She mixes her own colours. '.repeat(8)}\n\nJudy sails on Sundays.`,
  });
  const dup = writeNote(root, { slug: 'judy-again', title: 'Judy again', body: 'DUPLICATE: Judy the painter of lakes.' });
  const fan = writeNote(root, { slug: 'fan', title: 'Fan', body: `A fan of [Judy again](${dup.path}) <!-- uuid: ${dup.uuid} -->.` });
  return { root, judy, dup, fan };
}

const run = (root: string, args: string[], env: Record<string, string> = llm.env) => zk(['--root', root, ...args], { env });

describe('tend-writes from cron', () => {
  it('--json with no TTY prints only the JSON and exits 0; the next pass calls no LLM; status shows the pass', async () => {
    const { root, judy, dup, fan } = corpus();
    const r = await run(root, ['tend-writes', '--json', '--backend', 'rg']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(r.json).toMatchObject({ ok: true, dry_run: false, summary: { merged: 1 } });
    expect(r.json.rows).toContainEqual({ note: dup.path, action: 'merged', stage: 'tend', target: judy.path });
    expect(r.stderr).toMatch(/^tend-writes: tending /m);
    expect(fs.readFileSync(path.join(root, fan.path), 'utf8')).toContain(`[Judy again](${judy.path}) <!-- uuid: ${judy.uuid} -->`);
    expect(mdFiles(path.join(root, '.archive'))).toEqual([dup.path]);
    expect((await run(root, ['tend', 'check'])).code).toBe(0);

    const calls = llm.calls.length;
    const again = await run(root, ['tend-writes', '--json', '--backend', 'rg']);
    expect(again.code).toBe(0);
    expect(llm.calls.length).toBe(calls);
    expect(again.json.summary).toEqual({ skipped: 2 });
    const status = await run(root, ['status']);
    expect(status.stdout).toMatch(/^gardener: last pass finished \S+ on \S+ \(2 skipped\)$/m);

    // The walk recognises unchanged notes from a cache of their hashes; one edited by hand is tended again.
    fs.appendFileSync(path.join(root, fan.path), '\nFans meet on Fridays.\n');
    const third = await run(root, ['tend-writes', '--json', '--backend', 'rg']);
    expect(third.json.rows.filter((row: { action: string }) => row.action !== 'skipped').map((row: { note: string }) => row.note)).toEqual([fan.path]);
    expect(llm.calls.length).toBeGreaterThan(calls);
  });

  it('--dry-run prints the plan the real pass would make (same backend) and changes no byte of the corpus', async () => {
    const { root, judy, dup } = corpus();
    const before = snapshot(root, { skip: /^\.zk\/index/ });
    const r = await run(root, ['tend-writes', '--dry-run', '--split-sweep', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`would split ${judy.path} into: Judy paints; Judy sails`);
    expect(r.stdout).toContain(`would merge ${dup.path} into ${judy.path}`);
    expect(r.stdout).toMatch(/\(dry run: nothing written\)$/);
    // Nothing of the corpus changes; only the derived search index may have been brought up to date.
    expect(snapshot(root, { skip: /^\.zk\/index/ })).toEqual(before);
  });

  it('a second caretaker exits 4 naming the holder, whether the lease is held or a slow pass is running', async () => {
    // Two notes on one subject sharing only its word: the pass judges them, slowly.
    const root = tempCorpus();
    for (const n of SOURDOUGH) writeNote(root, { ...n });
    const expires = new Date(Date.now() + 600_000).toISOString();
    write(root, '.zk/lease', JSON.stringify({ host: os.hostname(), pid: process.pid, purpose: 'tend repair', since: new Date().toISOString(), expires }));
    const before = snapshot(root);
    const held = await run(root, ['tend-writes']);
    expect([held.code, held.stderr.trim()]).toEqual([4, `error: caretaker lease held by ${os.hostname()} pid ${process.pid} (tend repair) until ${expires}`]);
    expect(snapshot(root)).toEqual(before);
    fs.rmSync(path.join(root, '.zk/lease'));

    const slow = await startFakeLlm(handlers, { delayMs: 700 });
    try {
      const both = await Promise.all([run(root, ['tend-writes', '--backend', 'rg'], slow.env), run(root, ['tend-writes', '--backend', 'rg'], slow.env)]);
      expect(both.map((x) => x.code).sort()).toEqual([0, 4]);
      expect(both.find((x) => x.code === 4)!.stderr).toMatch(/^error: caretaker lease held by .+ pid \d+ \(tend-writes\) until /);
    } finally {
      await slow.close();
    }
    expect(fs.existsSync(path.join(root, '.zk/lease'))).toBe(false);
  });

  it('without an LLM exits 3 and changes nothing; an LLM failing on one note fails that row with exit 3', async () => {
    const { root } = corpus();
    const before = snapshot(root);
    const none = await run(root, ['tend-writes', '--json'], {});
    expect(none.code).toBe(3);
    expect(none.json).toMatchObject({ ok: false, error: { code: 'llm_unconfigured' } });
    expect(snapshot(root)).toEqual(before);

    const broken = writeNote(root, { slug: 'broken', title: 'Broken', body: 'BROKEN note about Judy the painter.' });
    const r = await run(root, ['tend-writes', '--json', '--backend', 'rg']);
    expect(r.code).toBe(3);
    expect(r.json).toMatchObject({ ok: false, error: { code: 'llm_failed' } });
    expect(r.json.rows).toContainEqual({ note: broken.path, action: 'failed', stage: 'tend', error: expect.stringMatching(/LLM/) });
    expect(r.json.summary.merged).toBe(1);
  });
});

describe('tend-writes with the LLM endpoint unreachable', () => {
  /** Notes about Judy, newest first in the order given, each saying how the model answers for it. */
  function dueNotes(markers: string[]) {
    const root = tempCorpus();
    const anchor = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy paints lakes at sunrise with colours she mixes herself.' });
    const notes = markers.map((m) =>
      writeNote(root, { slug: `judy-${m.toLowerCase()}`, title: `Judy ${m}`, body: `${m}: Judy paints lakes at sunrise with colours she mixes herself.` }),
    );
    // The walk goes newest first: the notes in the order given, the one they all resemble last.
    const now = Date.now() / 1000;
    [...notes, anchor].forEach((n, i) => fs.utimesSync(path.join(root, n.path), now - i, now - i));
    return { root, notes };
  }
  const tended = (root: string) => Object.keys(JSON.parse(fs.readFileSync(path.join(root, '.zk/tended.json'), 'utf8')).notes);
  const fast = { ZK_MEMORY_LLM_RETRIES: '2', ZK_MEMORY_LLM_BACKOFF: '0.01' };

  it('a refused connection stops the pass at the first note: exit 3, one line naming the endpoint, the rest tended next pass', async () => {
    const { root, notes } = dueNotes(['ONE', 'TWO', 'THREE']);
    const base = await closedBase();
    const env = { ...llm.env, ...fast, ZK_MEMORY_LLM_BASE: base };
    const r = await run(root, ['tend-writes', '--backend', 'rg'], env);
    expect(r.code).toBe(3);
    const endpoint = `LLM endpoint ${base}/chat/completions unreachable: connection refused (ECONNREFUSED)`;
    expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toEqual([
      `error: ${endpoint}; the pass stopped at ${notes[0].path}, and the notes not reached are tended next pass`,
    ]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const json = await run(root, ['tend-writes', '--json', '--backend', 'rg', '--split-sweep', '3'], env);
    expect(json.code).toBe(3);
    expect(json.json).toMatchObject({ ok: false, error: { code: 'llm_unreachable' }, summary: { failed: 1 } });
    // The split sweep stops as well, before the walk begins.
    expect(json.json.rows).toEqual([{ note: expect.any(String), action: 'failed', stage: 'split', error: expect.stringContaining(endpoint) }]);
    expect(tended(root)).toEqual([]);
    const passes = fs
      .readFileSync(path.join(root, '.zk/trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.event === 'garden_pass');
    expect(passes.map((p) => p.stopped_at)).toEqual([notes[0].path, json.json.rows[0].note]);

    const back = await run(root, ['tend-writes', '--json', '--backend', 'rg']);
    expect(back.code, back.stderr).toBe(0);
    expect(
      back.json.rows
        .filter((row: { action: string }) => row.action !== 'skipped')
        .map((row: { note: string }) => row.note)
        .slice(0, 3),
    ).toEqual(notes.map((n) => n.path));
  });

  it('401 and 403 stop the pass after one request', async () => {
    for (const status of [401, 403]) {
      const server = await startFakeLlm({ record_merge_decision: () => refuse(status, { error: 'no key' }) });
      try {
        const { root, notes } = dueNotes(['ONE', 'TWO', 'THREE']);
        const r = await run(root, ['tend-writes', '--json', '--backend', 'rg'], { ...server.env, ...fast });
        expect(r.code).toBe(3);
        expect(r.json.error).toEqual({
          code: 'llm_unreachable',
          message: expect.stringMatching(
            new RegExp(`^LLM endpoint ${server.base}/chat/completions unreachable: HTTP ${status}, .+; the pass stopped at ${notes[0].path}, `),
          ),
        });
        expect(server.calls).toHaveLength(1);
        expect(tended(root)).toEqual([]);
      } finally {
        await server.close();
      }
    }
  });

  it('a 500 or a 429 is still retried and the pass goes on; what it did before a 401 stays', async () => {
    const answers: Record<string, unknown> = {
      FINE: { action: 'create', target: '', reason: 'separate' },
      CRASH: null,
      BUSY: refuse(429, { error: 'slow down' }),
      NOKEY: refuse(401, { error: 'no key' }),
    };
    const markerOf = (m: ChatMessage[]) => /<memory>\n[^<]*?^title: Judy (\w+)$/m.exec(m.map((x) => x.content).join('\n'))?.[1] ?? '';
    const server = await startFakeLlm({ record_merge_decision: (m) => (markerOf(m) in answers ? answers[markerOf(m)] : answers.FINE) });
    try {
      const { root, notes } = dueNotes(['FINE', 'CRASH', 'BUSY', 'NOKEY', 'LATER']);
      const r = await run(root, ['tend-writes', '--json', '--backend', 'rg'], { ...server.env, ...fast });
      expect(r.code).toBe(3);
      expect(r.json.error.code).toBe('llm_unreachable');
      // Two retries each for the 500 and the 429, one request for the 401, none for the note after it.
      expect(server.calls.map((c) => markerOf(c.messages))).toEqual(['FINE', 'CRASH', 'CRASH', 'CRASH', 'BUSY', 'BUSY', 'BUSY', 'NOKEY']);
      expect(r.json.rows.map((row: { note: string; action: string }) => [row.note, row.action])).toEqual([
        [notes[0].path, 'linked'],
        [notes[1].path, 'failed'],
        [notes[2].path, 'failed'],
        [notes[3].path, 'failed'],
      ]);
      expect(tended(root)).toContain(notes[0].path);
      expect(tended(root)).not.toContain(notes[4].path);
    } finally {
      await server.close();
    }
  });
});

describe('split and split-candidates from the command line', () => {
  it('split REF: parent and children whose every link resolves; not_split changes nothing; no LLM exits 3', async () => {
    const { root, judy, fan } = corpus();
    const cands = await run(root, ['split-candidates', '--json', '--top', '2']);
    expect(cands.json.candidates.map((c: { path: string; size: number }) => c.path)).toEqual([judy.path, fan.path]);
    expect(cands.json.candidates[0]).toMatchObject({ uuid: judy.uuid, slug: judy.slug, title: 'Judy', size: expect.any(Number) });

    const before = snapshot(root);
    const none = await run(root, ['split', 'judy'], {});
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/^error: no LLM configured/);
    const kept = await run(root, ['split', fan.path, '--json']);
    expect(kept.json).toEqual({ ok: true, action: 'not_split', children: [] });
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(Object.fromEntries(Object.entries(before).filter(([f]) => !f.startsWith('.zk'))));

    const r = await run(root, ['split', 'judy', '--json', '--max-fragments', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, action: 'split', parent: { path: judy.path, title: 'Judy' }, archived: `.archive/${judy.path}` });
    expect(r.json.children.map((c: { title: string }) => c.title)).toEqual(['Judy paints', 'Judy sails']);
    expect(r.json.parent.uuid).not.toBe(judy.uuid);
    const check = await run(root, ['tend', 'check', '--json']);
    expect(check.code).toBe(0);
    expect(check.json.counts).toMatchObject({ stale: 0, broken: 0 });
    for (const c of r.json.children) {
      const read = await run(root, ['read', c.path, '--json']);
      expect(read.json.links).toContainEqual(expect.objectContaining({ target: judy.path, resolved: true, title: 'Judy' }));
    }
    const parent = await run(root, ['read', judy.path, '--json']);
    expect(parent.json.links.filter((l: { resolved: boolean }) => l.resolved)).toHaveLength(2);
  });
});
