import { afterEach, describe, expect, it } from 'vitest';
import { ripgrepNoteGrep } from '../src/adapters/ripgrep.js';
import { residentState } from '../src/compose.js';
import { processIo, withContext, type RunContext } from '../src/context.js';
import { linkGraph, linkGraphs } from '../src/corpus/graph/link-graph.js';
import { readNoteFile, type Note } from '../src/corpus/note/notes.js';
import { Settings } from '../src/settings.js';
import { tempCorpus, write } from './helpers/corpus.js';

// `context` follows the links of several hits at once (src/api/context.ts): without a server,
// their link graphs come from one grep of every note for them all (src/corpus/graph/link-graph.ts
// `linkGraphs`), and must be what each note's own `linkGraph` finds, and what a resident index finds.

const U = (n: number) => `${String(n).padStart(8, '0')}-1111-4111-8111-111111111111`;

/** A seeded corpus of notes linking to each other in every form: by file name, by title, by a wikilink with an anchor, %-encoded, to a heading, to nothing. */
function linkedCorpus(size: number, seed: number): { root: string; names: string[] } {
  let s = seed;
  const rand = (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
  const root = tempCorpus();
  const names = Array.from({ length: size }, (_, i) => `20260101-note-${i}.md`);
  // Two notes share a title, so a wikilink by it is ambiguous; every note links the last one by
  // its undated file name, which neither its title nor its text holds.
  const title = (i: number) => (i === 3 ? 'Note 2' : i === size - 1 ? 'The last one' : `Note ${i}`);
  const forms = [
    (j: number) => `[see](${names[j]})`,
    (j: number) => `[[${title(j)}]]`,
    (j: number) => `[[${title(j)}|${U(j)}]]`,
    (j: number) => `[enc](${encodeURIComponent(title(j))})`,
    (j: number) => `[part](${names[j]}#part-${j})`,
    (j: number) => `[[note-${j}]]`,
    () => '[[Nobody at all]]',
  ];
  names.forEach((name, i) => {
    const links = [...Array.from({ length: rand(5) }, () => forms[rand(forms.length)](rand(size))), `[[note-${size - 1}]]`];
    write(root, name, `---\nuuid: ${U(i)}\ntitle: ${title(i)}\ndate: 2026-01-01\n---\n\n# ${title(i)}\n\n## Part ${i}\n\n${links.join('\n\n')}\n`);
  });
  return { root, names };
}

const open: { close(): void }[] = [];
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

describe('the link graphs of several notes at once', () => {
  it('are each note’s own, found by one grep in-process, and as a resident index finds them', async () => {
    for (const seed of [1, 2, 3]) {
      const { root, names } = linkedCorpus(40, seed);
      const notes = names.filter((_, i) => i % 7 === seed).map((name) => readNoteFile(root, name) as Note);
      let greps = 0;
      const counted: RunContext = {
        settings: new Settings({}),
        io: processIo,
        grep: { filesMatching: (...a) => (greps++, ripgrepNoteGrep.filesMatching(...a)) },
      };
      const alone = withContext(counted, () => notes.map((n) => linkGraph(root, n)));
      greps = 0;
      const together = withContext(counted, () => linkGraphs(root, notes));
      expect(greps).toBe(1);
      expect(together).toEqual(alone);
      expect(together.some((g) => g.backlinks.length > 0)).toBe(true);
      expect(together.some((g) => g.links.some((l) => l.resolved))).toBe(true);

      const jobs: (() => Promise<void>)[] = [];
      const warm = residentState(root, true, { warmUp: (job) => void jobs.push(job) });
      open.push(warm);
      const resident: RunContext = { ...counted, resident: warm };
      withContext(resident, () => linkGraphs(root, notes));
      for (const job of jobs.splice(0)) await withContext(resident, job);
      greps = 0;
      expect(withContext(resident, () => linkGraphs(root, notes))).toEqual(alone);
      expect(greps).toBe(0);
    }
  });

  it('place a backlink at the line its note has now, in a resident process, once the link moved', async () => {
    const root = tempCorpus();
    const note = (n: number, title: string, body: string) => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;
    write(root, '20260101-alpha.md', note(1, 'Alpha', 'The first note.'));
    write(root, '20260101-beta.md', note(2, 'Beta', 'Links to [[Alpha]].'));
    const jobs: (() => Promise<void>)[] = [];
    const warm = residentState(root, true, { warmUp: (job) => void jobs.push(job) });
    open.push(warm);
    const ctx: RunContext = { settings: new Settings({}), io: processIo, grep: ripgrepNoteGrep, resident: warm };
    const backlinks = async () => {
      await warm.caughtUp();
      return withContext(ctx, () => linkGraph(root, readNoteFile(root, '20260101-alpha.md') as Note).backlinks);
    };
    await backlinks();
    for (const job of jobs.splice(0)) await withContext(ctx, job);
    expect(await backlinks()).toEqual([{ path: '20260101-beta.md', title: 'Beta', line: 9 }]);
    write(root, '20260101-beta.md', note(2, 'Beta', 'A paragraph first.\n\nLinks to [[Alpha]].'));
    expect(await backlinks()).toEqual([{ path: '20260101-beta.md', title: 'Beta', line: 11 }]);
  });

  it('of no notes is none, with no grep', () => {
    const root = tempCorpus();
    let greps = 0;
    const ctx: RunContext = { settings: new Settings({}), io: processIo, grep: { filesMatching: () => (greps++, []) } };
    expect(withContext(ctx, () => linkGraphs(root, []))).toEqual([]);
    expect(greps).toBe(0);
  });
});
