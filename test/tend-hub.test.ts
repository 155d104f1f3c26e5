import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempCorpus, write, zkProcess } from './helpers/corpus.js';
import { noteText } from './tend-fixtures.js';

// A hub note of very many links: every rewrite of its links is one parse and one pass over its
// text, so each command finishes; a deadline far above what it takes catches one that does not
// (a rewrite that went through the whole text again for every link took minutes at 10,000 links).

const LINKS = 100_000;
const TARGETS = 200;
/** Minutes, not a speed: these commands take seconds on a busy machine. */
const DEADLINE_MS = 240_000;

const uuidOf = (j: number) => `${j.toString(16).padStart(8, '0')}-0000-4000-8000-${String(j).padStart(12, '0')}`;
const targetName = (j: number) => `20261101-target-${j}.md`;

/** Line k of the hub: a link (to a heading every third line), anchored when `anchored`. */
function hubLine(k: number, anchored: boolean): string {
  const j = k % TARGETS;
  const anchor = anchored ? ` <!-- uuid: ${uuidOf(j)} -->` : '';
  return `- see [target ${j}](${targetName(j)}${k % 3 === 1 ? '#details' : ''})${anchor} for the background of ${k}`;
}

/** The hub, with links tend must leave alone: one in a code fence, a URL, one already anchored. */
function hubText(anchored: boolean): string {
  const lines = Array.from({ length: LINKS }, (_, k) => hubLine(k, anchored));
  return noteText(uuidOf(999_999), 'Hub', [
    'Where every topic is.',
    '',
    ...lines,
    '',
    '```md',
    `[not a link](${targetName(1)})`,
    '```',
    '',
    `More at [the docs](https://example.org/docs.md) and [target 0](${targetName(0)}) <!-- uuid: ${uuidOf(0)} -->.`,
  ]);
}

describe('a note of 100,000 links', () => {
  it(
    'tend check, robustify --write and read finish; robustify anchors every link and changes nothing else',
    async () => {
      const root = tempCorpus();
      for (let j = 0; j < TARGETS; j++) write(root, targetName(j), noteText(uuidOf(j), `Target ${j}`, ['## Details', '', 'Text.']));
      write(root, '20261201-hub.md', hubText(false));
      const run = (args: string[]) => zkProcess([...args, '--root', root, '--json'], { timeout: DEADLINE_MS, maxBuffer: 1 << 30 });

      const before = await run(['tend', 'check']);
      expect(before.code).toBe(0);
      expect(before.json.counts).toEqual({ ok: 1, stale: 0, broken: 0, unanchored: LINKS });

      const robustify = await run(['tend', 'robustify', '--write']);
      expect(robustify.code).toBe(0);
      expect(robustify.json).toMatchObject({ changed: LINKS, files: ['20261201-hub.md'] });
      expect(fs.readFileSync(path.join(root, '20261201-hub.md'), 'utf8')).toBe(hubText(true));

      const after = await run(['tend', 'check']);
      expect(after.json.counts).toEqual({ ok: 1 + LINKS, stale: 0, broken: 0, unanchored: 0 });

      const read = await run(['read', '20261201-hub']);
      expect(read.code).toBe(0);
      expect(read.json.links).toHaveLength(LINKS + 1);
      expect(read.json.links.filter((l: { resolved: boolean }) => !l.resolved)).toEqual([]);
      expect(read.json.links[LINKS - 1]).toMatchObject({
        target: targetName((LINKS - 1) % TARGETS),
        title: `Target ${(LINKS - 1) % TARGETS}`,
        line: LINKS + 9,
      });
    },
    4 * DEADLINE_MS,
  );
});
