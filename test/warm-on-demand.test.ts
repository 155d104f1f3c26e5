import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/cli.js';
import { processIo, withContext, type RunContext } from '../src/context.js';
import { residentState } from '../src/compose.js';
import { KeptNotes } from '../src/corpus/note/kept-notes.js';
import { Settings } from '../src/settings.js';
import { keptFactsBuilt } from '../src/corpus/graph/facts.js';
import { readNote } from '../src/corpus/ops/read.js';
import { keptMetasBuilt, loadNoteMetas } from '../src/corpus/note/note-meta.js';
import { mcpSession, sessionContext } from '../src/mcp/server.js';
import { serverStatus } from '../src/server/status.js';
import { tempCorpus, write } from './helpers/corpus.js';

// A resident process builds what whole-corpus calls need of every note only once a call asks
// for it, between calls and in its own context (src/corpus/note/stat-cache.ts `keptOrWarming`):
// memory goes to what its calls use.

const U = (n: number) => `${String(n).repeat(8)}-1111-4111-8111-111111111111`;
const note = (n: number, title: string, body: string) => `---\nuuid: ${U(n)}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;

const open: { close(): void }[] = [];
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

function corpus(): string {
  const root = tempCorpus();
  write(root, '20260101-alpha.md', note(1, 'Alpha', 'The first note.'));
  write(root, '20260101-beta.md', note(2, 'Beta', 'Links to [[Alpha]].'));
  return root;
}

/** The process's own context, as a resident process has it before it serves a call. */
const processContext = (): RunContext => ({ settings: new Settings(process.env), io: processIo });

/** A resident state whose warm-ups are held until the test runs them, in the process's own context. */
function heldWarmUps(root: string) {
  const jobs: (() => Promise<void>)[] = [];
  const warm = residentState(root, true, { warmUp: (job) => void jobs.push(job) });
  open.push(warm);
  const own = { ...processContext(), resident: warm };
  const call = <T>(fn: () => T): T => withContext(own, fn);
  const runAll = async () => {
    for (const job of jobs.splice(0)) await withContext(own, job);
  };
  return { warm, jobs, call, runAll };
}

const linkCount = (facts: readonly { links: unknown[] }[]) => facts.reduce((n, f) => n + f.links.length, 0);
const titles = (metas: readonly { title: string }[]) => metas.map((m) => m.title);

describe('what a resident process keeps of every note, built once a call asks', () => {
  it('keeps nothing until a call asks; then builds it once, between calls, and answers from it after', async () => {
    const root = corpus();
    const { warm, jobs, call, runAll } = heldWarmUps(root);
    expect(warm.part(KeptNotes)?.kept.size).toBe(0);
    // A call that could use every note's links finds none kept: it goes its own way, and asks for them once.
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBeUndefined();
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBeUndefined();
    expect(jobs).toHaveLength(1);
    expect(warm.part(KeptNotes)?.kept.size).toBe(0); // nothing was built within the calls
    await runAll();
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBe(1);
    // The metadata is another kind, asked for of its own.
    expect(call(() => keptMetasBuilt(root, 'titles', titles))).toBeUndefined();
    expect(jobs).toHaveLength(1);
    await runAll();
    expect(call(() => keptMetasBuilt(root, 'titles', titles))).toEqual(['Alpha', 'Beta']);
    expect(jobs).toHaveLength(0);
  });

  it('answers what the notes say now once built: a link added while the warm-up waited counts', async () => {
    const root = corpus();
    const { warm, call, runAll } = heldWarmUps(root);
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBeUndefined();
    write(root, '20260101-gamma.md', note(3, 'Gamma', 'Links to [[Alpha]] and [[Beta]].'));
    await warm.caughtUp();
    await runAll();
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBe(3);
    fs.rmSync(path.join(root, '20260101-beta.md'));
    await warm.caughtUp();
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBe(2);
  });

  it('an index built with a follower is brought up to date note by note, and answers as one built anew would', async () => {
    const root = corpus();
    const { warm, call, runAll } = heldWarmUps(root);
    let builds = 0;
    const build = (facts: readonly { path: string }[]) => (builds++, new Set(facts.map((f) => f.path)));
    const follow = (paths: Set<string>, was: { path: string } | undefined, now: { path: string } | undefined) => {
      if (was) paths.delete(was.path);
      if (now) paths.add(now.path);
    };
    const paths = () => [...(call(() => keptFactsBuilt(root, 'paths', build, follow)) ?? [])].sort();
    expect(paths()).toEqual([]);
    await runAll();
    expect(paths()).toEqual(['20260101-alpha.md', '20260101-beta.md']);
    // Until the watcher has listed the root's symlinks, each call checks every note (and builds anew): wait for a call that does not.
    for (let before = -1, tries = 0; before !== builds && tries < 400; tries++) {
      before = builds;
      await new Promise((resolve) => setTimeout(resolve, 25));
      paths();
    }
    const built = builds;
    write(root, '20260101-gamma.md', note(3, 'Gamma', 'Links to [[Alpha]].'));
    fs.rmSync(path.join(root, '20260101-beta.md'));
    fs.appendFileSync(path.join(root, '20260101-alpha.md'), 'More.\n');
    await warm.caughtUp();
    expect(paths()).toEqual(['20260101-alpha.md', '20260101-gamma.md']);
    expect(builds).toBe(built);
    // Without a follower, the same change builds it again.
    const rebuilt = () => call(() => keptFactsBuilt(root, 'count', linkCount));
    expect(rebuilt()).toBe(1);
    fs.rmSync(path.join(root, '20260101-gamma.md'));
    await warm.caughtUp();
    expect(rebuilt()).toBe(0);
  });

  it('a read finds backlinks in the kept index of links as the notes change: added, edited, removed', async () => {
    const root = corpus();
    const { warm, call, runAll } = heldWarmUps(root);
    const backlinks = () => call(() => readNote(root, 'alpha')).backlinks.map((b) => b.path);
    expect(backlinks()).toEqual(['20260101-beta.md']);
    await runAll();
    expect(backlinks()).toEqual(['20260101-beta.md']);
    write(root, '20260101-gamma.md', note(3, 'Gamma', 'Links to [[Alpha]].'));
    write(root, '20260101-beta.md', note(2, 'Beta', 'Links to nothing now.'));
    await warm.caughtUp();
    expect(backlinks()).toEqual(['20260101-gamma.md']);
    fs.rmSync(path.join(root, '20260101-gamma.md'));
    write(root, '20260101-delta.md', note(4, 'Delta', `Links to [the first](${'20260101-alpha.md'}) by its file.`));
    await warm.caughtUp();
    expect(backlinks()).toEqual(['20260101-delta.md']);
  });

  it('a read places each backlink by the kept links, without reading the linking notes, as in-process places it', async () => {
    const root = tempCorpus();
    write(root, '20260101-first.md', note(1, 'Café', 'The first note.'));
    write(root, '20260101-beta.md', note(2, 'Beta', 'Links to [[Café]].'));
    write(root, '20260101-gamma.md', note(3, 'Gamma', 'A line.\n\nAs [the first](20260101-first.md) says.'));
    write(root, '20260101-delta.md', note(4, 'Delta', `[old name](20251231-gone.md)<!-- uuid: ${U(1)} -->`));
    // A name written decomposed (NFD) that no text search for the note's names finds: in-process
    // leaves it out, and so must the server; the same with one of its names in the text is in.
    write(root, '20260101-zeta.md', note(5, 'Zeta', 'See [[Cafe\u0301]].'));
    write(root, '20260101-eta.md', note(6, 'Eta', 'Of the first days.\n\nSee [[Cafe\u0301]].'));
    const { warm, call, runAll } = heldWarmUps(root);
    const inProcess = () => withContext(processContext(), () => readNote(root, 'first')).backlinks;
    const warmRead = () => {
      const reads = vi.spyOn(fs, 'readFileSync');
      try {
        const backlinks = call(() => readNote(root, 'first')).backlinks;
        return { backlinks, read: reads.mock.calls.map(([file]) => path.basename(String(file))).filter((f) => f.endsWith('.md')) };
      } finally {
        reads.mockRestore();
      }
    };
    call(() => readNote(root, 'first'));
    await runAll();
    const placed = [
      { path: '20260101-beta.md', title: 'Beta', line: 9 },
      { path: '20260101-delta.md', title: 'Delta', line: 9 },
      { path: '20260101-eta.md', title: 'Eta', line: 11 },
      { path: '20260101-gamma.md', title: 'Gamma', line: 11 },
    ];
    expect(inProcess()).toEqual(placed);
    // Until the watcher has listed the root's symlinks, each call checks (reads) every note: wait for a call that does not.
    let first = warmRead();
    for (let tries = 0; first.read.length > 3 && tries < 400; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      first = warmRead();
    }
    expect(first.backlinks).toEqual(placed);
    // Only the note itself, and the notes whose kept links do not show one of its names, are read.
    expect(first.read.sort()).toEqual(['20260101-eta.md', '20260101-first.md', '20260101-zeta.md']);
    // A link moved to another line, nothing else changed: the kept line follows.
    write(root, '20260101-beta.md', note(2, 'Beta', 'A paragraph first.\n\nLinks to [[Café]].'));
    await warm.caughtUp();
    const moved = [{ ...placed[0], line: 11 }, ...placed.slice(1)];
    expect(inProcess()).toEqual(moved);
    expect(warmRead().backlinks).toEqual(moved);
  });

  it('a call that builds every answer itself (list, status) keeps them: no warm-up is asked for after it', async () => {
    const root = corpus();
    const { jobs, call } = heldWarmUps(root);
    expect(titles(call(() => loadNoteMetas(root)))).toEqual(['Alpha', 'Beta']);
    expect(call(() => keptMetasBuilt(root, 'titles', titles))).toEqual(['Alpha', 'Beta']);
    expect(jobs).toHaveLength(0);
  });

  it('a server whose calls only search, from the command line or over MCP, keeps nothing of every note and asks for nothing', async () => {
    const root = corpus();
    const { warm, jobs } = heldWarmUps(root);
    const io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => root };
    const env = { ...process.env, ZK_MEMORY_SERVER: 'off', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_EMBED_BASE: '' };
    const call = (...argv: string[]) => main(['--root', root, ...argv], io, env, { resident: warm, served: true });
    for (const backend of ['fts', 'rg']) expect(await call('search', 'alpha first', '--backend', backend)).toBe(0);
    const server = await mcpSession(root, sessionContext({ ...processContext(), resident: warm }, warm), serverStatus);
    const [client, side] = InMemoryTransport.createLinkedPair();
    await server.connect(side);
    const mcp = new Client({ name: 'test', version: '1' });
    await mcp.connect(client);
    try {
      const found = await mcp.callTool({ name: 'search', arguments: { query: 'links alpha' } });
      expect(JSON.stringify(found.structuredContent)).toContain('20260101-beta.md');
    } finally {
      await mcp.close();
    }
    expect(jobs).toHaveLength(0);
    expect(warm.part(KeptNotes)?.kept.size).toBe(0);
    // What does ask: a read, for the note's backlinks.
    expect(await call('read', '20260101-alpha')).toBe(0);
    expect(jobs).toHaveLength(1);
  });

  it('stops with the process: a warm-up that had not run keeps nothing, and none is asked for after', async () => {
    const root = corpus();
    const { warm, jobs, call, runAll } = heldWarmUps(root);
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBeUndefined();
    warm.close();
    await runAll();
    expect(warm.part(KeptNotes)?.kept.size).toBe(0);
    expect(call(() => keptMetasBuilt(root, 'titles', titles))).toBeUndefined();
    expect(jobs).toHaveLength(0);
  });

  it('without a way to build between calls, nothing is kept but what calls build themselves', () => {
    const root = corpus();
    const warm = residentState(root, true);
    open.push(warm);
    const call = <T>(fn: () => T): T => withContext({ ...processContext(), resident: warm }, fn);
    expect(call(() => keptFactsBuilt(root, 'count', linkCount))).toBeUndefined();
    expect(warm.part(KeptNotes)?.kept.size).toBe(0);
  });
});
