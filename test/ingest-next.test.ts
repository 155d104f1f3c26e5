import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import { acceptWindow, skipWindow } from '../src/ingest/accept.js';
import { nextWindow } from '../src/ingest/next.js';
import { startJob } from '../src/ingest/start.js';
import { tempCorpus } from './helpers/corpus.js';
import { SPEC_MD } from './helpers/sources.js';

const temps: string[] = [];
beforeEach(() => {
  vi.stubEnv('ZK_MEMORY_BACKEND', 'rg');
  vi.stubEnv('ZK_MEMORY_SOURCE', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function corpus(): string {
  const root = tempCorpus();
  temps.push(root);
  return root;
}

/** A source folder holding the given files. */
function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-src-'));
  temps.push(dir);
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

/** Read a whole job the way an agent does, one accept per window; the number of calls it took. */
async function readAll(root: string): Promise<{ calls: number; windows: string[] }> {
  const windows: string[] = [];
  let calls = 0;
  for (;;) {
    calls++;
    const r = await nextWindow(root, {});
    if (!r.window) {
      expect(r.done).toBe(true);
      return { calls, windows };
    }
    windows.push(r.window.id);
    calls++;
    await acceptWindow(root, { title: `Note on ${r.window.id}`, body: 'In my own words.' });
  }
}

const frontmatterDoc = (title: string, sections: string[]) =>
  `---\ntitle: ${title}\ntags: [docs]\n---\n\n# ${title}\n\n${sections.map((s, i) => `## Part ${i + 1}\n\n${s}\n`).join('\n')}`;

describe('ingest next: windows an agent can work through', () => {
  it('reads a short document with frontmatter and small sections in one window, listing its sections', async () => {
    const root = corpus();
    const from = folder({
      'a.md': frontmatterDoc('Alpha', ['Short part.', 'x'.repeat(108), 'y'.repeat(242)]),
      'b.md': frontmatterDoc('Beta', ['One.', 'Two.']),
      'c.md': `Plain\n=====\n\nSetext intro.\n\nDetails\n-------\n\n${'z'.repeat(300)}\n`,
    });
    await startJob(root, { from });
    const first = await nextWindow(root, {});
    expect(first.window).toMatchObject({ id: 'd1-w1', index: 1, count: 1, headings: ['Alpha', 'Part 1'] });
    expect(first.window?.text.startsWith('---\ntitle: Alpha\n')).toBe(true);
    expect(first.window?.sections.map((s) => s.headings.join(' > '))).toEqual(['Alpha > Part 1', 'Alpha > Part 2', 'Alpha > Part 3']);
    await skipWindow(root, {});
    const { calls, windows } = await readAll(root);
    expect(windows).toEqual(['d2-w1', 'd3-w1']);
    expect(calls).toBe(5);
    const note = fs.readdirSync(root).find((f) => f.endsWith('.md') && fs.readFileSync(path.join(root, f), 'utf8').includes('d3-w1')) ?? '';
    expect(fs.readFileSync(path.join(root, note), 'utf8')).toContain('source_path: Plain\n');
  });

  it('shows how many notes came from the document and only the last five', async () => {
    const root = corpus();
    await startJob(root, { from: folder({ 'spec.md': SPEC_MD }) });
    await nextWindow(root, {});
    for (let i = 1; i <= 7; i++) await acceptWindow(root, { title: `Point ${i}`, body: `Point ${i} in my words.`, keep: true });
    const again = await nextWindow(root, {});
    expect(again).toMatchObject({ held: true, captured_count: 7, window: { id: 'd1-w1' } });
    expect(again.captured.map((c) => c.title)).toEqual(['Point 3', 'Point 4', 'Point 5', 'Point 6', 'Point 7']);
  });

  it("shows as related only notes that share the window's own terms", async () => {
    const root = corpus();
    writeNote(root, { slug: 'kafka-plan', title: 'Kafka cutover plan', body: 'The order queue moves to Kafka; consumer lag is watched during the cutover.' });
    writeNote(root, { slug: 'canteen', title: 'Canteen at noon', body: 'The queue at the canteen is long on Fridays.' });
    writeNote(root, { slug: 'holidays', title: 'Holiday rota', body: 'Who is away in August.' });
    await startJob(root, { from: folder({ 'spec.md': SPEC_MD }) });
    const r = await nextWindow(root, {});
    expect(r.related.map((h) => h.title)).toEqual(['Kafka cutover plan']);
  });

  it('ends with one clear signal: no window and done', async () => {
    const root = corpus();
    await startJob(root, { from: folder({ 'spec.md': SPEC_MD }) });
    await nextWindow(root, {});
    await skipWindow(root, {});
    expect(await nextWindow(root, {})).toMatchObject({ window: null, done: true, remaining: 0, held: false });
  });
});

describe('ingest jobs started by an earlier version', () => {
  it('resume with the windows they were cut into; a job from a newer version is refused', async () => {
    const root = corpus();
    const parts = ['Queue', 'Risks', 'Plan'].map((h) => `## ${h}\n\n${h} ${'word '.repeat(30)}\n\n`).join('');
    const started = await startJob(root, { from: folder({ 'spec.md': parts }), name: 'old', windowChars: 200 });
    expect(started.manifest.version).toBe(2);
    const file = path.join(root, '.zk', 'ingest', 'old', 'job.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    // What the first format wrote: version 1, one window per section, no `sections`; claims without a time.
    manifest.version = 1;
    for (const w of manifest.documents[0].windows) delete w.sections;
    fs.writeFileSync(file, JSON.stringify(manifest));
    const state = path.join(root, '.zk', 'ingest', 'old', 'state.json');
    const claim = { owner: '', host: os.hostname(), pid: 999_999_999, expires: new Date(Date.now() + 60_000).toISOString() };
    fs.writeFileSync(state, JSON.stringify({ windows: { 'd1-w1': { status: 'open', notes: [], claim } }, intents: [] }));

    const r = await nextWindow(root, { job: 'old' });
    expect(r.window).toMatchObject({
      id: 'd1-w2',
      sections: [{ start: manifest.documents[0].windows[1].start, headings: manifest.documents[0].windows[1].headings }],
    });
    await acceptWindow(root, { job: 'old', title: 'Risk', body: 'Consumer lag is the risk.' });

    manifest.version = 3;
    fs.writeFileSync(file, JSON.stringify(manifest));
    await expect(nextWindow(root, { job: 'old' })).rejects.toThrow(
      'ingest job old was started by a newer zk-memory (job format 3; this one reads 1 and 2): update zk-memory to go on with it',
    );
  });
});
