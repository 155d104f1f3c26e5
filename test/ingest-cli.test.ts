import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJob } from '../src/ingest/start.js';
import { mdFiles, tempCorpus, zk, zkProcess, tempDir } from './helpers/corpus.js';
import { bigText, CONVERTED, GUIDE_MD, sourceTree } from './helpers/sources.js';

const env = { ZK_MEMORY_BACKEND: 'rg' };
const cli =
  (root: string) =>
  (args: string[], extraEnv: Record<string, string> = {}) =>
    zk(['--root', root, ...args], { env: { ...env, ...extraEnv } });

/** A source folder holding one file; returns the file's path. */
function oneFileSource(name: string, content: string): string {
  const dir = tempDir('zk-src-');
  fs.writeFileSync(path.join(dir, name), content);
  return path.join(dir, name);
}

const jobState = (root: string, job: string) => JSON.parse(fs.readFileSync(path.join(root, '.zk', 'ingest', job, 'state.json'), 'utf8'));

describe('ingest: a whole folder, window by window, through the CLI', () => {
  it('covers every character of every document, shows earlier and related notes, and counts what was done', async () => {
    const root = tempCorpus();
    const run = cli(root);
    await run(['write', 'kafka-plan', 'Kafka cutover plan', 'The order queue moves to Kafka; consumer lag is watched during the cutover.']);
    const started = await run(['ingest', 'start', '--from', sourceTree(), '--name', 'Team docs', '--window-chars', '20000', '--json']);
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({ ok: true, action: 'created', job: 'team-docs', window_chars: 20000 });
    expect(started.json.documents.map((d: any) => [d.path, d.kind])).toEqual([
      ['guide.md', 'markdown'],
      ['notes/big.txt', 'text'],
      ['page.html', 'html'],
      ['slides.pdf', 'pdf'],
      ['spec.docx', 'docx'],
    ]);
    expect(started.json.unsupported).toEqual([
      { path: 'broken.txt', reason: 'not valid UTF-8' },
      { path: 'image.png', reason: 'unsupported file type (.png)' },
    ]);

    const read: Record<string, string[]> = {};
    let lastEvent = '';
    const expected: Record<string, { done: number; skipped: number; notes: number; paths: string[] }> = {};
    for (let step = 1; ; step++) {
      const next = await run(['ingest', 'next', '--json']);
      if (next.code === 1) {
        expect(next.json).toMatchObject({ ok: true, window: null, done: true, remaining: 0 });
        expect((await run(['ingest', 'next'])).stdout.trim()).toBe('done: every window of job team-docs is done or skipped; nothing is left to read');
        break;
      }
      expect(next.code).toBe(0);
      const w = next.json.window;
      const doc = w.document.path;
      const seen = (read[doc] ??= []);
      seen.push(w.text);
      expect(w.index).toBe(seen.length);
      const e = (expected[doc] ??= { done: 0, skipped: 0, notes: 0, paths: [] });
      // Documents are read in order: this window sees the last notes written from the earlier ones.
      expect(next.json.captured.map((c: any) => c.path)).toEqual(e.paths.slice(-5));
      expect(next.json.captured_count).toBe(e.paths.length);
      if (doc === 'spec.docx' && w.index === 1) expect(next.json.related.map((h: any) => h.title)).toContain('Kafka cutover plan');

      if (step % 3 === 0) {
        const s = await run(['ingest', 'skip', '--reason', 'boilerplate', '--json']);
        expect(s.json).toEqual({ ok: true, job: 'team-docs', window: w.id, window_status: 'skipped' });
        e.skipped++;
        lastEvent = 'skip';
        continue;
      }
      const a = await run([
        'ingest',
        'accept',
        '--title',
        `Thought ${step}`,
        `What window ${w.id} taught me.`,
        ...(step % 5 === 1 ? ['--keep'] : []),
        '--json',
      ]);
      expect(a.code).toBe(0);
      expect(a.json).toMatchObject({ ok: true, window: w.id, action: 'created', repeated: false, window_status: step % 5 === 1 ? 'open' : 'done' });
      e.paths.push(a.json.note.path);
      e.notes++;
      if (step % 5 === 1) {
        const m = await run(['ingest', 'accept', '--merge', a.json.note.path, 'And one more detail.', '--json']);
        expect(m.json).toMatchObject({ ok: true, window: w.id, action: 'merged', window_status: 'done' });
        e.paths.push(a.json.note.path);
        e.notes++;
      }
      e.done++;
      lastEvent = step % 5 === 1 ? 'merge' : 'accept';
    }

    const status = await run(['ingest', 'status', '--json']);
    const jobDir = path.join(root, '.zk', 'ingest', 'team-docs');
    expect(Object.keys(read)).toEqual(Object.keys(CONVERTED));
    for (const d of status.json.documents) {
      const cached = fs.readFileSync(path.join(jobDir, 'docs', `${d.id}.md`), 'utf8');
      expect(cached).toBe(CONVERTED[d.path]());
      expect(read[d.path].join('')).toBe(cached);
      const e = expected[d.path];
      expect(d).toMatchObject({ windows: read[d.path].length, pending: 0, claimed: 0, done: e.done, skipped: e.skipped, notes: e.notes });
    }
    expect(read['notes/big.txt'].length).toBeGreaterThan(8);
    const sum = (k: 'done' | 'skipped' | 'notes') => Object.values(expected).reduce((n, e) => n + e[k], 0);
    expect(status.json.totals).toMatchObject({ documents: 5, pending: 0, done: sum('done'), skipped: sum('skipped'), notes: sum('notes') });
    expect(status.json.last_event).toMatchObject({ event: lastEvent });
    expect(status.json.last_event.age_seconds).toBeLessThan(60);
    const text = await run(['ingest', 'status']);
    expect(text.stdout).toContain('  broken.txt: not valid UTF-8');

    const first = fs.readFileSync(path.join(root, expected['guide.md'].paths[0]), 'utf8');
    expect(first).toMatch(
      /^---\nuuid: [0-9a-f-]{36}\ntitle: Thought 1\ndate: \d{4}-\d{2}-\d{2}\nsource_doc: guide\.md\nsource_path: Deployment guide\ningest_window: team-docs\/d1-w1\nfragment_sources:\n  - date: (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\n    source_doc: guide\.md\n    source_path: Deployment guide\n    ingest_window: team-docs\/d1-w1\n---\n\n# Thought 1\n\nWhat window d1-w1 taught me\.\n\n\n---\n\*\1:\* And one more detail\.\n$/,
    );
  });

  it('cuts a 200 KB text into windows under the default cap that tile it', async () => {
    const root = tempCorpus();
    const r = await startJob(root, { from: oneFileSource('big.txt', bigText()) });
    const doc = r.manifest.documents[0];
    const text = fs.readFileSync(path.join(root, '.zk', 'ingest', 'big', 'docs', 'd1.md'), 'utf8');
    expect(text).toBe(bigText());
    expect(doc.windows.map((w) => text.slice(w.start, w.end)).join('')).toBe(text);
    expect(doc.windows.every((w, i) => w.end - w.start <= 6000 && w.start === (doc.windows[i - 1]?.end ?? 0))).toBe(true);
    expect(doc.windows.length).toBeGreaterThan(33);
  });
});

describe('ingest: crashes and concurrent readers', () => {
  it('a killed accept leaves consistent state, and repeating it does not duplicate the note', async () => {
    const root = tempCorpus();
    const run = cli(root);
    await run(['ingest', 'start', '--from', oneFileSource('guide.md', GUIDE_MD), '--window-chars', '200']);
    expect((await run(['ingest', 'next', '--json'])).json.window.id).toBe('d1-w1');
    const crash = { ZK_MEMORY_FAULT: 'ingest-after-write' };
    const accept = ['ingest', 'accept', '--title', 'Clean builds', 'Builds run in clean containers.', '--json'];

    const killed = await zkProcess(['--root', root, ...accept], { env: { ...env, ...crash } });
    expect(killed.code).not.toBe(0);
    expect(killed.stdout).toBe('');
    expect(mdFiles(root)).toHaveLength(1);
    const note = mdFiles(root)[0];
    expect(fs.readFileSync(path.join(root, note), 'utf8')).toContain('ingest_window: guide/d1-w1\n');
    expect(jobState(root, 'guide').intents).toHaveLength(1);

    const status = await run(['ingest', 'status', '--json']);
    expect(status.json.documents[0]).toMatchObject({ windows: 3, pending: 2, done: 1, notes: 1 });
    expect(jobState(root, 'guide').intents).toEqual([]);
    const again = await run(accept);
    expect(again.json).toMatchObject({ ok: true, window: 'd1-w1', action: 'created', repeated: true, note: { path: note, title: 'Clean builds' } });
    expect(mdFiles(root)).toEqual([note]);

    // A merge killed after its append, repeated at once: recovered on the spot, appended once.
    expect((await run(['ingest', 'next', '--json'])).json.window.id).toBe('d1-w2');
    const merge = ['ingest', 'accept', '--merge', note, 'Cache misses cost four minutes.', '--json'];
    expect((await zkProcess(['--root', root, ...merge], { env: { ...env, ...crash } })).code).not.toBe(0);
    const repeated = await run(merge);
    expect(repeated.json).toMatchObject({ ok: true, window: 'd1-w2', action: 'merged', repeated: true, window_status: 'done' });
    expect(fs.readFileSync(path.join(root, note), 'utf8').split('Cache misses cost four minutes.')).toHaveLength(2);
    expect((await run(['ingest', 'status', '--json'])).json.totals).toMatchObject({ pending: 1, done: 2, notes: 2 });

    // A write that fails leaves no intent and no record behind.
    expect((await run(['ingest', 'next', '--json'])).json.window.id).toBe('d1-w3');
    const bad = await run(['ingest', 'accept', '--title', 'x', '--slug', '!!!', 'Body.']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('error: invalid slug: "!!!" has no letters or digits');
    expect(jobState(root, 'guide').intents).toEqual([]);
    expect(jobState(root, 'guide').windows['d1-w3']).toMatchObject({ status: 'open', notes: [] });
  });

  it('readers started at once get different windows, and an expired claim comes back', async () => {
    const root = tempCorpus();
    const run = cli(root);
    await run(['ingest', 'start', '--from', oneFileSource('guide.md', GUIDE_MD), '--window-chars', '200']);
    const ttl = { ZK_MEMORY_INGEST_CLAIM_TTL: '2' };
    // Three reader processes with no names: each is a reader of its own.
    const got = await Promise.all([1, 2, 3].map(() => zkProcess(['--root', root, 'ingest', 'next', '--json'], { env: { ...env, ...ttl } })));
    expect(got.map((g) => g.code)).toEqual([0, 0, 0]);
    expect(got.map((g) => g.json.window.id).sort()).toEqual(['d1-w1', 'd1-w2', 'd1-w3']);
    const b = { ZK_MEMORY_SOURCE: 'reader-b' };
    const none = await run(['ingest', 'next', '--json'], b);
    expect(none.code).toBe(1);
    expect(none.json).toMatchObject({ ok: true, window: null, done: false, remaining: 3, claimed_by_others: 3 });
    const ambiguous = await run(['ingest', 'skip']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr.trim()).toBe('error: several windows are open (d1-w1, d1-w2, d1-w3): pass --window ID');
    expect((await run(['ingest', 'skip', '--window', 'd1-w2'])).code).toBe(0);
    // Three seconds on, the 2-second claims have run out: the first window comes back.
    const later = (args: string[], e: Record<string, string> = {}) => zk(['--root', root, ...args], { env: { ...env, ...e }, clock: () => Date.now() + 3000 });
    expect((await later(['ingest', 'next', '--json'])).json.window.id).toBe('d1-w1');

    // A reader with a name is shown the window it holds until it closes it, and closes it by default.
    const a = { ZK_MEMORY_SOURCE: 'reader-a' };
    expect((await later(['ingest', 'next', '--json'], a)).json.window.id).toBe('d1-w3');
    expect((await later(['ingest', 'next', '--json'], a)).json).toMatchObject({ window: { id: 'd1-w3' }, held: true });
    const busy = await later(['ingest', 'next'], b);
    expect([busy.code, busy.stdout.trim()]).toEqual([
      1,
      'nothing free in job guide: the 2 remaining window(s) are claimed by other readers; try again when they are closed or their claims run out',
    ]);
    expect((await later(['ingest', 'skip', '--json'], a)).json).toMatchObject({ window: 'd1-w3', window_status: 'skipped' });
    expect((await later(['ingest', 'status'])).stdout).toMatch(/^claimed: d1-w1 until \d{4}-/m);
  });

  it('a reader without a name that calls next twice gets its own window back, not a second one', async () => {
    const root = tempCorpus();
    const run = cli(root);
    await run(['ingest', 'start', '--from', oneFileSource('guide.md', GUIDE_MD), '--window-chars', '200']);
    const first = await run(['ingest', 'next', '--json']);
    expect(first.json).toMatchObject({ window: { id: 'd1-w1' }, held: false });
    const second = await run(['ingest', 'next', '--json']);
    expect(second.json).toMatchObject({ window: { id: 'd1-w1' }, held: true, remaining: 3, claimed_by_others: 0 });
    const third = await run(['ingest', 'next']);
    expect(third.code).toBe(0);
    expect(third.stdout).toContain('window d1-w1 · 1 of 3');
    expect(third.stdout).toContain('you still hold this window from an earlier `next`: accept or skip it to move on');
    expect(jobState(root, 'guide').windows['d1-w2']).toBeUndefined();
    // Accept without --window goes to that window, and the next call moves on.
    expect((await run(['ingest', 'accept', '--title', 'Clean builds', 'Builds run in clean containers.', '--json'])).json).toMatchObject({
      window: 'd1-w1',
      window_status: 'done',
    });
    expect((await run(['ingest', 'next', '--json'])).json).toMatchObject({ window: { id: 'd1-w2' }, held: false });
    // A named reader's window is its own: an unnamed call does not take it back.
    expect((await run(['ingest', 'skip', '--json'])).json).toMatchObject({ window: 'd1-w2' });
    expect((await run(['ingest', 'next', '--json'], { ZK_MEMORY_SOURCE: 'reader-a' })).json.window.id).toBe('d1-w3');
    const after = await run(['ingest', 'next', '--json']);
    expect(after.json).toMatchObject({ window: null, done: false, remaining: 1, claimed_by_others: 1 });
  });
});

describe('ingest: starting, resuming and refusing', () => {
  it('a second start on the same sources resumes; other sources under the name are refused', async () => {
    const root = tempCorpus();
    const run = cli(root);
    const src = path.dirname(oneFileSource('guide.md', GUIDE_MD));
    fs.writeFileSync(path.join(src, 'broken.pdf'), '%PDF-1.4 damaged');
    expect((await run(['ingest', 'start', '--from', src, '--json'])).json).toMatchObject({ action: 'created', job: path.basename(src).toLowerCase() });
    const again = await run(['ingest', 'start', '--from', src, '--json']);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ ok: true, action: 'exists' });
    fs.appendFileSync(path.join(src, 'guide.md'), '\nA new line.\n');
    const changed = await run(['ingest', 'start', '--from', src]);
    expect(changed.code).toBe(1);
    expect(changed.stderr.trim()).toBe(`error: ingest job ${path.basename(src).toLowerCase()} already exists with other sources (${src}): pick another --name`);
    const file = await run(['ingest', 'start', '--from', path.join(src, 'guide.md'), '--json']);
    expect(file.json).toMatchObject({ action: 'created', job: 'guide' });
  });

  it('says clearly what is wrong, with the documented exit codes', async () => {
    const root = tempCorpus();
    const run = cli(root);
    const noJob = await run(['ingest', 'next']);
    expect([noJob.code, noJob.stderr.trim()]).toEqual([1, 'error: no ingest job: start one with `ingest start --from PATH`']);
    const missing = await run(['ingest', 'start', '--from', path.join(root, 'nope')]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `error: no such file or folder: ${path.join(root, 'nope')}`]);
    expect((await run(['ingest', 'start'])).code).toBe(2);
    // An empty --from (or an agent's empty `from`) is not the working directory.
    const cwd = path.dirname(oneFileSource('here.md', GUIDE_MD));
    for (const from of ['', '  ']) {
      const blank = await zk(['--root', root, '--json', 'ingest', 'start', '--from', from], { cwd });
      expect(blank.json, JSON.stringify(from)).toEqual({ ok: false, error: { code: 'usage', message: 'ingest start needs --from PATH: a file or a folder' } });
      expect(blank.code).toBe(2);
    }
    expect(fs.existsSync(path.join(root, '.zk', 'ingest')) ? fs.readdirSync(path.join(root, '.zk', 'ingest')).filter((n) => !n.startsWith('.')) : []).toEqual(
      [],
    );
    const empty = await run(['ingest', 'start', '--from', path.dirname(oneFileSource('a.png', 'x'))]);
    expect([empty.code, empty.stderr.trim()]).toEqual([
      1,
      expect.stringMatching(/^error: nothing to read under .* \(a\.png: unsupported file type \(\.png\)\)$/),
    ]);

    await run(['ingest', 'start', '--from', oneFileSource('guide.md', GUIDE_MD)]);
    const unknown = await run(['ingest', 'status', '--job', 'nope', '--json']);
    expect(unknown.code).toBe(1);
    expect(unknown.json).toEqual({ ok: false, error: { code: 'not_found', message: 'unknown ingest job: nope' } });
    const closed = await run(['ingest', 'accept', '--title', 'T', 'Body.']);
    expect([closed.code, closed.stderr.trim()]).toEqual([1, 'error: no window open: run `ingest next` first, or pass --window ID']);
    await run(['ingest', 'next']);
    expect((await run(['ingest', 'accept', 'Body without a title.'])).code).toBe(2);
    expect((await run(['ingest', 'accept', '--title', 'Empty', ' '])).code).toBe(2);
    expect((await run(['ingest', 'accept', '--merge', 'nope', '--title', 'T', 'x'])).code).toBe(2);
    const badWindow = await run(['ingest', 'skip', '--window', 'd9-w9']);
    expect([badWindow.code, badWindow.stderr.trim()]).toEqual([1, 'error: unknown window: d9-w9 (job guide)']);
    const unknownRef = await run(['ingest', 'accept', '--merge', 'nope', 'x']);
    expect([unknownRef.code, unknownRef.stderr.trim()]).toEqual([1, 'error: unknown ref: nope']);
    expect(await run(['ingest', 'skip', '--json'])).toMatchObject({ code: 0, json: { window: 'd1-w1', window_status: 'skipped' } });
    const twice = await run(['ingest', 'skip', '--window', 'd1-w1']);
    expect([twice.code, twice.stderr.trim()]).toEqual([1, 'error: window d1-w1 is already skipped: run `ingest next` for the next one']);
    expect(mdFiles(root)).toEqual([]);
  });
});
