import { execa } from 'execa';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write } from './helpers/corpus.js';

// A resident process keeps every note's metadata and links between calls (src/corpus/note/stat-cache.ts).
// What it keeps must not hold the notes' text: V8 keeps a whole string alive for any slice of
// it, so a title sliced from a note's text kept the text. Measured in a process of its own, with
// collections forced, as the heap a kept corpus adds.

const DIST = path.resolve(import.meta.dirname, '..', 'dist', 'src');
const at = (file: string) => pathToFileURL(path.join(DIST, file)).href;

const NOTES = 300;
const BODY_KB = 100;

/**
 * The script: keep every note's metadata and links, then again after every note was rewritten;
 * the heap each time added, in MB. With a cache file beside the index (argument `cached`), or
 * without one, as where no index can be written.
 */
const script = `
import fs from 'node:fs';
import { processIo, withContext } from '${at('context.js')}';
import { residentState } from '${at('compose.js')}';
import { Settings } from '${at('settings.js')}';
import { noteCacheFile } from '${at('search/location.js')}';
import { loadNoteMetas } from '${at('corpus/note/note-meta.js')}';
import { loadNoteFacts } from '${at('corpus/graph/facts.js')}';
const [root, cached] = process.argv.slice(1);
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed / 1e6; };
const warm = residentState(root, true, { networkRescanMs: 0 });
const base = heap();
const kept = [];
await withContext({ settings: new Settings(process.env), io: processIo, resident: warm, noteCache: cached === 'cached' ? noteCacheFile : undefined }, async () => {
  const keep = () => { const m = loadNoteMetas(root); const f = loadNoteFacts(root); if (m.length !== ${NOTES} || f.length !== ${NOTES}) throw new Error('notes missing'); };
  keep();
  kept.push(heap() - base);
  for (const name of fs.readdirSync(root).filter((n) => n.endsWith('.md'))) {
    const file = root + '/' + name;
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Text of', 'Text, again, of'));
  }
  await new Promise((r) => setTimeout(r, 300));
  keep();
  kept.push(heap() - base);
});
warm.close();
console.log(JSON.stringify(kept));
`;

describe('what a resident process keeps of every note', () => {
  it('holds no note text: the heap it adds is a small part of the notes it read, first and after every note changed', async () => {
    const root = tempCorpus();
    const body = `Text of the note. ${'lorem ipsum dolor '.repeat((BODY_KB * 1024) / 18)}\n`;
    for (let i = 0; i < NOTES; i++) {
      const uuid = `${String(i).padStart(8, '0')}-1111-4111-8111-111111111111`;
      write(
        root,
        `20260101-note-${i}.md`,
        `---\nuuid: ${uuid}\ntitle: A note numbered ${i} with a long title\ndate: 2026-01-01\n---\n\n# A note numbered ${i}\n\n${body}`,
      );
    }
    const read = (NOTES * BODY_KB) / 1024; // about 30 MB of text
    for (const cached of ['cached', 'uncached']) {
      const r = await execa('node', ['--expose-gc', '--input-type=module', '-e', script, root, cached], { reject: false });
      expect(r.exitCode, r.stderr).toBe(0);
      const [first, again] = JSON.parse(r.stdout) as number[];
      expect(first, cached).toBeLessThan(read / 6);
      expect(again, cached).toBeLessThan(read / 6);
    }
  });
});
