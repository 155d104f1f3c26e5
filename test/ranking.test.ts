import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../src/llm/embed.js';
import { findCandidates, toCandidate } from '../src/pipelines/integrate.js';
import { fuseScores } from '../src/search/hybrid.js';
import { searchCorpus } from '../src/search/backends.js';
import { parseQuery, queryWords, stem, stemFinder, stemsOf, wordsOf } from '../src/search/terms.js';
import { relevanceFloor } from '../src/search/vector-floor.js';
import { tempCorpus, write } from './helpers/corpus.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
});

function corpus(notes: Record<string, [title: string, body: string]>): string {
  const root = tempCorpus();
  roots.push(root);
  for (const [name, [title, body]] of Object.entries(notes)) {
    write(root, name, `---\nuuid: ${crypto.randomUUID()}\ntitle: ${title}\ndate: 2026-11-01\n---\n\n# ${title}\n\n${body}\n`);
  }
  return root;
}

const FILLER = 'We met on Tuesday to go over the hiring plan, the office move and the quarterly numbers.';

/** Six unrelated notes, so that a query word is rare enough to rank by. */
const fillers = (body = FILLER) => Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`filler-${i}.md`, [`Filler ${i}`, body] as [string, string]]));
const paths = async (root: string, query: string, backend: string, extra: object = {}) =>
  (await searchCorpus(root, query, { backend, limit: 5, ...extra })).hits.map((h) => h.path);

describe.each(['rg', 'fts'])('lexical ranking with %s', (backend) => {
  it('ranks a note titled with the query above one that only mentions it', async () => {
    const root = corpus({
      'mention.md': ['Weekly sync', `${FILLER} Someone asked about the sourdough starter in passing.`],
      'titled.md': ['Sourdough starter', 'Feed it flour and water twice a day; keep it at room temperature.'],
    });
    expect((await paths(root, 'sourdough starter', backend))[0]).toBe('titled.md');
  });

  it('finds an inflected form by its stem, and not words that merely contain the query', async () => {
    const root = corpus({
      'painted.md': ['Studio', 'She painted the harbour at dawn.'],
      'party.md': ['Party', 'A party at the apartment, with a start at eight.'],
      ...fillers(),
    });
    expect(await paths(root, 'paintings', backend)).toEqual(['painted.md']);
    expect(await paths(root, 'art', backend)).toEqual([]);
  });

  it('does not let the words of the question outweigh its subject', async () => {
    const root = corpus({
      'jazz.md': ['Sam and music', 'Sam listens to jazz records on Sundays.'],
      'kind.md': ['Thanks', 'That was kind of you, Sam. I like that kind of thing, and I said so: many kinds of thanks.'],
      ...fillers(),
    });
    expect((await paths(root, 'What kind of music does Sam like, did he say?', backend))[0]).toBe('jazz.md');
  });

  it('ranks a note with every query word above one repeating a single word', async () => {
    const root = corpus({
      'repeat.md': ['Kayaks', 'kayak kayak kayak: the kayak club, a new kayak, kayak racks.'],
      'both.md': ['Ice trip', 'A kayak trip to the glacier.'],
      ...fillers(`${FILLER} We took the kayak out once.`),
    });
    expect((await paths(root, 'kayak glacier', backend))[0]).toBe('both.md');
  });

  it('gives integrate no candidate that shares only an incidental word with the topic', async () => {
    const root = corpus({
      'tomatoes.md': ['Tomatoes', 'The tomatoes in the garden need water every morning this week.'],
      'kayak.md': ['Kayak club', 'The kayak club meets every Thursday at the lake.'],
      ...fillers(),
    });
    const none = await findCandidates(root, toCandidate({ content: 'The TLS certificate of the gateway expires next week.' }), { backend });
    expect(none).toEqual([]);
    const found = await findCandidates(root, toCandidate({ content: 'The garden tomatoes got blight.' }), { backend });
    expect(found.map((n) => n.path)).toEqual(['tomatoes.md']);
  });
});

describe('query terms', () => {
  it('are stems shared by both lexical backends, with the literal start rg looks for', () => {
    expect(parseQuery('Running happy').terms).toEqual([
      { stem: 'run', prefix: 'run', whole: false },
      { stem: 'happi', prefix: 'happ', whole: false },
    ]);
    expect(parseQuery('C++').terms).toEqual([{ stem: 'c', prefix: 'c', whole: true }]);
    expect(parseQuery('Go modules').terms).toEqual([
      { stem: 'go', prefix: 'go', whole: true },
      { stem: 'modul', prefix: 'modul', whole: false },
    ]);
    expect(queryWords('what kind of thing did she say?')).toEqual(['what', 'kind', 'of', 'thing', 'did', 'she', 'say']);
    // Parsed once, the query carries what each backend and the snippet read of it.
    expect(parseQuery('Running happy runs')).toMatchObject({
      text: 'Running happy runs',
      words: ['running', 'happy', 'runs'],
      stems: ['run', 'happi'],
      prefixes: ['run', 'happ'],
    });
  });

  it("are found in a text's words as stemming every word finds them, though only words that begin as a term does are stemmed", () => {
    // The repository's own prose and notes, Porter2's exceptions, and words of other scripts.
    const dir = path.join(import.meta.dirname, '..');
    const texts = [
      ...['README.md', ...fs.readdirSync(path.join(dir, 'docs')).map((f) => `docs/${f}`)].map((f) => path.join(dir, f)),
      ...fs.readdirSync(path.join(dir, 'examples', 'corpus')).map((f) => path.join(dir, 'examples', 'corpus', f)),
    ]
      .filter((f) => f.endsWith('.md'))
      .map((f) => fs.readFileSync(f, 'utf8'));
    texts.push(
      'skis skies dying lying tying idly gently ugly early only singly sky news howe atlas cosmos bias andes yelling ies yes',
      'Übermäßig ÉCOLE naïve café straße Дом домами 東京 タワー 𝒳ylophone ｆｕｌｌ \u0301accent e\u0301cole',
      'ties cries generously happily relational conditional',
    );
    const words = new Set(texts.flatMap(wordsOf));
    expect(words.size).toBeGreaterThan(3000);
    // What the shortcut rests on: every stem begins with its word's first character.
    expect([...words].filter((w) => stem(w)[0] !== w[0])).toEqual([]);
    // And so it finds what stemming every word finds, whichever terms are asked for (words begun by a
    // mark, or a character beyond the 16-bit range, among them).
    const all = [...words].map(stem);
    for (const [i, text] of texts.entries()) {
      const terms = [
        all[(i * 7919) % all.length],
        all[(i * 104729) % all.length],
        'run',
        'happi',
        'die',
        'ski',
        'дом',
        stem('𝒳ylophone'),
        stem('ｆｕｌｌ'),
        stem('école'),
      ];
      const found = new Set(stemsOf(text));
      expect(stemFinder(terms)(text)).toEqual(new Set(terms.filter((t) => found.has(t))));
    }
  });
});

/**
 * A toy embedder: each known topic word is an axis, and every text that speaks of any of them
 * also points along a shared axis (the register all notes share). A text with none of the words
 * points along an axis of its own, far from every note.
 */
const TOPICS = ['garden', 'kayak', 'budget', 'piano', 'lisbon', 'plumber', 'rollback', 'birthday', 'okapi'];
const toyEmbedder: Embedder = {
  model: 'toy',
  async embed(texts) {
    return texts.map((t) => {
      const lower = t.toLowerCase();
      const axes = TOPICS.map((w) => (lower.includes(w) ? 1 : 0));
      const any = axes.some(Boolean);
      return [any ? 1 : 0, ...axes, any ? 0 : 1];
    });
  },
};

function topicCorpus(): string {
  return corpus(Object.fromEntries(TOPICS.map((w) => [`${w}.md`, [`About ${w}`, `Notes on the ${w}.`]])));
}

describe('vector relevance floor', () => {
  it('answers nothing for a query far from every note, and the nearest notes otherwise', async () => {
    const root = topicCorpus();
    const far = await searchCorpus(root, 'quantum chromodynamics', { backend: 'vector', embedder: toyEmbedder });
    expect(far.hits).toEqual([]);
    const near = await searchCorpus(root, 'the okapi', { backend: 'vector', embedder: toyEmbedder });
    expect(near.hits[0].path).toBe('okapi.md');
  });

  it('is the mean similarity of note pairs less 1.5 standard deviations; no floor without a baseline', () => {
    expect(relevanceFloor({ mean: 0.8, sd: 0.1 })).toBeCloseTo(0.65);
    expect(relevanceFloor(undefined)).toBe(-Infinity);
  });
});

describe('hybrid fusion', () => {
  it('keeps the strong word match on top however low the embedder ranks it', async () => {
    // The toy embedder knows nothing of "sourdough": it puts the garden note nearest the query and
    // the sourdough note (which speaks of another topic) no nearer than any other note.
    const root = topicCorpus();
    write(
      root,
      'sourdough.md',
      `---\nuuid: ${crypto.randomUUID()}\ntitle: Sourdough\n---\n\n# Sourdough\n\nThe sourdough starter lives in the fridge by the okapi magnet; feed it on Sundays.\n`,
    );
    const query = 'sourdough starter for the garden';
    const vector = await searchCorpus(root, query, { backend: 'vector', embedder: toyEmbedder });
    expect(vector.hits[0].path).toBe('garden.md');
    const hybrid = await searchCorpus(root, query, { backend: 'hybrid', embedder: toyEmbedder });
    expect(hybrid.hits.map((h) => h.path).slice(0, 2)).toEqual(['sourdough.md', 'garden.md']);
  });

  it('lets a note both rankings agree on rise above one only the words favour', () => {
    const fused = fuseScores(
      [
        { name: 'words', score: 10 },
        { name: 'both', score: 9 },
      ],
      [
        { name: 'both', score: 0.9 },
        { name: 'other', score: 0.8 },
        { name: 'words', score: 0.2 },
      ],
    );
    expect(fused.map((r) => r.name)).toEqual(['both', 'words', 'other']);
  });
});
