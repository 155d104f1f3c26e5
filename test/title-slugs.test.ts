import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { titleSlug } from '../src/corpus/slug.js';
import { integrate, toCandidate } from '../src/pipelines/integrate.js';
import { stubLlm } from './helpers/llm-stub.js';
import { tempCorpus, tempDir, zk } from './helpers/corpus.js';

// A note named after its title gets a few whole words.

const LONG = 'How we check egress proxy certificates and the trust store on every build agent';

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
