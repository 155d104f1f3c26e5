import { processIo, withContext } from '../src/context.js';
import { Settings } from '../src/settings.js';
import { describe, expect, it } from 'vitest';
import { segmentBlocks, segmentChars, segmentText } from '../src/judge/segment.js';
import { textSegments, transcriptSegments, transcriptText } from '../src/judge/transcript.js';

function expectLossless(segments: string[], input: string, max: number): void {
  expect(segments.join('')).toBe(input);
  for (const s of segments) {
    expect(s.length).toBeGreaterThan(0);
    expect(s.length).toBeLessThanOrEqual(max);
  }
}

describe('segmenting', () => {
  it('keeps short input whole and empty input empty', () => {
    expect(segmentText('one paragraph', 100)).toEqual(['one paragraph']);
    expect(segmentText('', 100)).toEqual([]);
  });

  it('cuts on paragraph boundaries, never inside a paragraph that fits', () => {
    const paras = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} ${'word '.repeat(10 + i)}`.trim());
    const text = paras.join('\n\n');
    const segments = segmentText(text, 200);
    expectLossless(segments, text, 200);
    expect(segments.length).toBeGreaterThan(1);
    for (const s of segments) expect(s.trimEnd().endsWith('word') || s === segments.at(-1)).toBe(true);
    for (const s of segments.slice(0, -1)) expect(s.endsWith('\n\n')).toBe(true);
  });

  it('splits a paragraph too long alone on sentences, and a sentence too long on spaces, then anywhere', () => {
    const sentences = Array.from({ length: 20 }, (_, i) => `Sentence number ${i} is here.`).join(' ');
    const s1 = segmentText(sentences, 80);
    expectLossless(s1, sentences, 80);
    for (const s of s1.slice(0, -1)) expect(s).toMatch(/\.\s$/);
    const words = 'abc '.repeat(100);
    expectLossless(segmentText(words, 30), words, 30);
    const blob = 'x'.repeat(1000) + '😀'.repeat(50);
    const s3 = segmentText(blob, 99);
    expectLossless(s3, blob, 99);
    for (const s of s3) expect(s).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it('never loses a character, whatever the input', () => {
    const alphabet = ['a', 'b ', '.', '\n', '\n\n', ' \n \n', '東', '😀', '!', '\t'];
    let seed = 7;
    const rand = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 200; round++) {
      let text = '';
      const len = rand(400);
      for (let i = 0; i < len; i++) text += alphabet[rand(alphabet.length)];
      const max = 2 + rand(60);
      expectLossless(segmentText(text, max), text, max);
    }
  });

  it('keeps whole messages together where they fit', () => {
    const blocks = ['user: a'.padEnd(40, '.'), 'assistant: b'.padEnd(40, '.'), 'user: c'.padEnd(300, ' w'), 'assistant: d'];
    const segments = segmentBlocks(blocks, '\n\n', 100);
    expectLossless(segments, blocks.join('\n\n'), 100);
    expect(segments[0]).toBe(`${blocks[0]}\n\n${blocks[1]}\n\n`);
  });

  it('reads its size from ZK_MEMORY_SEGMENT_CHARS', () => {
    const size = (env: Record<string, string>) => withContext({ settings: new Settings(env), io: processIo }, () => segmentChars());
    expect(size({})).toBe(24_000);
    expect(size({ ZK_MEMORY_SEGMENT_CHARS: '5000' })).toBe(5000);
    expect(() => size({ ZK_MEMORY_SEGMENT_CHARS: 'lots' })).toThrow(/ZK_MEMORY_SEGMENT_CHARS/);
  });
});

describe('transcripts', () => {
  const messages = [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: '<recall>Judy lives in Oslo.</recall>\nJudy moved to Paris.' },
    { role: 'tool', content: 'search result: Judy is 40' },
    { role: 'assistant', content: [{ type: 'text', text: 'Noted: Paris.' }] },
    { role: 'user', content: '<recall note="x">old</recall>' },
  ];

  it('keeps only what people said, without injected recall', () => {
    expect(transcriptText(messages)).toBe('user: Judy moved to Paris.\n\nassistant: Noted: Paris.');
    expect(transcriptSegments(messages, 1000)).toEqual([transcriptText(messages)]);
    expect(textSegments('a <recall>b</recall> c', 100)).toEqual(['a  c']);
  });
});
