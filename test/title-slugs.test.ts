import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import { resolveRef } from '../src/corpus/graph/refs.js';
import { titleSlug } from '../src/corpus/note/slug.js';
import { integrate, toCandidate } from '../src/pipelines/integrate.js';
import { stubLlm } from './helpers/llm-stub.js';
import { mdFiles, tempCorpus, tempDir, zk } from './helpers/corpus.js';

// A note named after its title gets a few whole words; notes named by the earlier, longer rule
// keep their names and stay findable.

const LONG = 'How we check egress proxy certificates and the trust store on every build agent';
const DANA = "Dana's notes on checking egress proxy certificates and the trust store on every build agent";
// What the earlier rule named notes with these titles (80 characters, an apostrophe split the word).
const LONG_BEFORE = 'how-we-check-egress-proxy-certificates-and-the-trust-store-on-every-build-agent';
const DANA_BEFORE = 'dana-s-notes-on-checking-egress-proxy-certificates-and-the-trust-store-on-every';

/** The undated slug of a note file: `judy` for `20261130-judy.md`. */
const undated = (file: string) => file.replace(/^\d{8}-/, '').replace(/\.md$/, '');

/** A corpus where `ingest accept` can write: one job, its first window handed out. */
async function ingestCorpus() {
  const root = tempCorpus();
  const src = path.join(tempDir('zk-src-'), 'doc.md');
  fs.writeFileSync(src, '# Certificates\n\nThe build agents trust the egress proxy.\n');
  const run = (args: string[]) => zk(['--root', root, ...args], { env: { ZK_MEMORY_BACKEND: 'rg' } });
  expect((await run(['ingest', 'start', '--from', src, '--name', 'doc'])).code).toBe(0);
  expect((await run(['ingest', 'next', '--json'])).code).toBe(0);
  const accept = async (title: string) => {
    const r = await run(['ingest', 'accept', '--title', title, '--keep', '--json', 'The agents trust the proxy.']);
    expect(r.code, r.stderr).toBe(0);
    return r.json.note.path as string;
  };
  return { root, run, accept };
}

describe('the slug a title makes', () => {
  it.each([
    [LONG, 'how-we-check-egress-proxy-certificates-and-the-trust-store'],
    ["Dana's trip", 'danas-trip'],
    ['Dana’s trip', 'danas-trip'],
    ["Don't  'quote' me", 'dont-quote-me'],
    ['x'.repeat(100), 'x'.repeat(60)],
  ])('%s -> %s', (title, want) => {
    expect(titleSlug(title)).toBe(want);
  });

  it('ingest accept names a note after its title in at most 60 characters of whole words', async () => {
    const { accept } = await ingestCorpus();
    const file = await accept(LONG);
    const slug = undated(file);
    expect(slug.length).toBeLessThanOrEqual(60);
    // Whole words: the slug is the title's first words, and the next character of the title is a space.
    expect(slug).toBe('how-we-check-egress-proxy-certificates-and-the-trust-store');
    expect(LONG.toLowerCase().replace(/ /g, '-').startsWith(`${slug}-`)).toBe(true);
    expect(undated(await accept("Dana's trip"))).toBe('danas-trip');
    expect(undated(await accept('Dana’s trip to the lakes'))).toBe('danas-trip-to-the-lakes');
  });

  it('integrate names a note it creates the same way', async () => {
    const root = tempCorpus();
    const llm = stubLlm({});
    const r = await integrate(root, toCandidate({ content: 'The build agents trust the egress proxy.', title: LONG }), { llm, backend: 'rg' });
    expect(r.action).toBe('created');
    expect(undated(r.note.path)).toBe('how-we-check-egress-proxy-certificates-and-the-trust-store');
    const dana = await integrate(root, toCandidate({ content: 'Dana went to the lakes.', title: "Dana's trip" }), { llm, backend: 'rg' });
    expect(undated(dana.note.path)).toBe('danas-trip');
    expect(llm.calls).toHaveLength(0);
  });
});

describe('notes named by the earlier rule', () => {
  it('keep their names; the old slug, the title and the new slug all find them', async () => {
    const root = tempCorpus();
    const long = writeNote(root, { slug: LONG_BEFORE, title: LONG, body: 'Old note.', date: '2025-03-10' });
    const dana = writeNote(root, { slug: DANA_BEFORE, title: DANA, body: 'Old note.', date: '2025-03-11' });
    expect(mdFiles(root)).toEqual([`20250310-${LONG_BEFORE}.md`, `20250311-${DANA_BEFORE}.md`]);
    const read = async (ref: string) => (await zk(['--root', root, '--json', 'read', ref])).json?.note.path;
    for (const [ref, note] of [
      [LONG_BEFORE, long],
      [LONG, long],
      ['how-we-check-egress-proxy-certificates-and-the-trust-store', long],
      [DANA_BEFORE, dana],
      [DANA, dana],
      ['danas-notes-on-checking-egress-proxy-certificates-and-the', dana],
    ] as const) {
      expect(await read(ref), ref).toBe(note.path);
      expect(resolveRef(root, ref).uuid, ref).toBe(note.uuid);
    }
    // A ref the new slug does not fit exactly (a word short) finds nothing.
    expect((await zk(['--root', root, 'read', 'how-we-check-egress-proxy-certificates-and-the-trust'])).code).toBe(1);
  });

  it('a long name its title did not make is not found by the short slug', async () => {
    const root = tempCorpus();
    writeNote(root, { slug: LONG_BEFORE, title: 'Build agents', body: 'Named by hand.', date: '2025-03-10' });
    const r = await zk(['--root', root, 'read', 'how-we-check-egress-proxy-certificates-and-the-trust-store']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: unknown ref: how-we-check-egress-proxy-certificates-and-the-trust-store');
  });

  it('a new note from the same title takes the short name beside the old one, and each keeps its ref', async () => {
    const { root, run, accept } = await ingestCorpus();
    const old = writeNote(root, { slug: DANA_BEFORE, title: DANA, body: 'Old note.', date: '2025-03-11' });
    const created = await accept(DANA);
    expect(undated(created)).toBe('danas-notes-on-checking-egress-proxy-certificates-and-the');
    expect(fs.existsSync(old.file)).toBe(true);
    expect((await run(['--json', 'read', DANA_BEFORE])).json.note.path).toBe(old.path);
    expect((await run(['--json', 'read', undated(created)])).json.note.path).toBe(created);
  });

  it('two old notes the same new slug fits are ambiguous, with both named', async () => {
    const root = tempCorpus();
    const a = writeNote(root, { slug: LONG_BEFORE, title: LONG, body: 'One.', date: '2025-03-10' });
    const b = writeNote(root, { slug: `${LONG_BEFORE.replace(/-agent$/, '')}-host`, title: LONG.replace(/agent$/, 'host'), body: 'Two.', date: '2025-03-12' });
    const r = await zk(['--root', root, 'read', 'how-we-check-egress-proxy-certificates-and-the-trust-store']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: ambiguous ref: how-we-check-egress-proxy-certificates-and-the-trust-store matches ${a.path}, ${b.path} (name one by its file name)`,
    );
  });
});
