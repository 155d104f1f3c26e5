import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, write, zk } from './helpers/corpus.js';

// The MCP server keeps the index open and watches the root between calls, checking every note
// file only as a backstop: whatever another program changes must still be found by the very next
// search. The default settings (a full check before every search for a fresh process) are in force.

let client: Client;
let root: string;
/** Where notes have a second name, outside the corpus (hard links). */
let outside: string;

const note = (uuid: string, title: string, body: string) => `---\nuuid: ${uuid}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;

beforeAll(async () => {
  root = tempCorpus();
  write(root, '20260101-lake.md', note('11111111-1111-4111-8111-111111111111', 'Lake', 'A walk by the lake.'));
  write(root, '20260102-hill.md', note('22222222-2222-4222-8222-222222222222', 'Hill', 'A climb up the hill.'));
  // A note that is a symlink before the server starts: the server lists it itself.
  write(root, '20260100-brook.md', note('00000000-0000-4000-8000-000000000000', 'Brook', 'Trout in the brook.'));
  fs.symlinkSync('20260100-brook.md', path.join(root, 'brook.md'));
  // A note with a second name outside the corpus before the server starts (a hard link).
  outside = tempDir();
  write(root, '20260110-carr.md', note('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'Carr', 'Alders in the carr.'));
  fs.linkSync(path.join(root, '20260110-carr.md'), path.join(outside, 'carr.md'));
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: {
      ...(process.env as Record<string, string>),
      ZK_MEMORY_BACKEND: 'fts',
      ZK_MEMORY_INDEX_SCAN_SECONDS: '',
      ZK_MEMORY_INDEX_SCAN_BELOW: '',
      ZK_MEMORY_LLM_BASE: '',
      ZK_MEMORY_LLM_MODEL: '',
    },
    stderr: 'pipe',
  });
  client = new Client({ name: 'zk-memory-warm-test', version: '1.0.0' });
  await client.connect(transport);
  // Warm: the index is built, and a search has checked every note since the watcher started.
  expect(await titles('lake')).toEqual(['Lake']);
  expect(await titles('hill')).toEqual(['Hill']);
});

afterAll(async () => {
  await client?.close();
});

async function hits(query: string): Promise<any[]> {
  const r = (await client.callTool({ name: 'search', arguments: { query } })) as any;
  expect(r.structuredContent.ok).toBe(true);
  expect(r.structuredContent.backend).toBe('fts');
  return r.structuredContent.hits;
}

async function titles(query: string): Promise<string[]> {
  return (await hits(query)).map((h) => h.title);
}

/** The note files a search finds, in name order (a symlinked note and its target share a title). */
async function paths(query: string): Promise<string[]> {
  return (await hits(query)).map((h) => h.path).sort();
}

// The test's own process is another process than the MCP server's: what it writes, merges or
// rebuilds in-process is another process's change to the server.
describe('a warm MCP server searches a corpus others change', () => {
  it('finds a note another process of the tool wrote, and one it merged into', async () => {
    expect((await zk(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi at the zoo.'])).code).toBe(0);
    expect(await titles('okapi')).toEqual(['Okapi']);
    expect((await zk(['--root', root, 'merge', '20260102-hill.md', 'Quinces grow on the hill.'])).code).toBe(0);
    expect(await titles('quinces')).toEqual(['Hill']);
  });

  it('finds a note written by hand, and an edit appended in place by hand', async () => {
    write(root, '20260103-fen.md', note('33333333-3333-4333-8333-333333333333', 'Fen', 'Herons in the fen.'));
    expect(await titles('herons')).toEqual(['Fen']);
    // An in-place append changes neither the root folder nor the journal: the watcher must report
    // it (a watcher that lost it while claiming to be complete would answer from a stale index).
    fs.appendFileSync(path.join(root, '20260101-lake.md'), '\nPikes live in the lake.\n');
    expect(await titles('pikes')).toEqual(['Lake']);
    fs.appendFileSync(path.join(root, '20260101-lake.md'), '\nOtters too.\n');
    expect(await titles('otters')).toEqual(['Lake']);
  });

  it('finds a same-size edit that put the old mtime back (sed -i, then touch -r)', async () => {
    const file = path.join(root, '20260102-hill.md');
    const ref = `${file}.ref`;
    execFileSync('cp', ['-p', file, ref]);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('up the', 'yurts '));
    execFileSync('touch', ['-r', ref, file]);
    fs.rmSync(ref);
    expect(await titles('yurts')).toEqual(['Hill']);
  });

  it('finds a note an editor replaced under its own name', async () => {
    const tmp = path.join(root, '.20260102-hill.md.swp');
    fs.writeFileSync(tmp, fs.readFileSync(path.join(root, '20260102-hill.md'), 'utf8').replace('climb', 'scramble with goats'));
    fs.renameSync(tmp, path.join(root, '20260102-hill.md'));
    expect(await titles('goats')).toEqual(['Hill']);
  });

  it('answers searches made at once alike: none answers before the change the other took is applied', async () => {
    fs.appendFileSync(path.join(root, '20260102-hill.md'), '\nWheatears nest here.\n');
    const both = await Promise.all([titles('wheatears'), titles('wheatears'), titles('wheatears')]);
    expect(both).toEqual([['Hill'], ['Hill'], ['Hill']]);
  });

  it('forgets a note deleted by hand at the next search', async () => {
    write(root, '20260104-moor.md', note('44444444-4444-4444-8444-444444444444', 'Moor', 'Curlews on the moor.'));
    expect(await titles('curlews')).toEqual(['Moor']);
    fs.rmSync(path.join(root, '20260104-moor.md'));
    expect(await titles('curlews')).toEqual([]);
  });

  it('answers from the new index when another process rebuilt it, and keeps watching', async () => {
    expect((await zk(['--root', root, 'index', '--rebuild'])).code).toBe(0);
    expect(await titles('herons')).toEqual(['Fen']);
    fs.appendFileSync(path.join(root, '20260103-fen.md'), '\nBitterns boom in spring.\n');
    expect(await titles('bitterns')).toEqual(['Fen']);
    fs.rmSync(path.join(root, '20260103-fen.md'));
    expect(await titles('herons')).toEqual([]);
  });
});

describe('a warm MCP server searches notes that are symlinks', () => {
  // A symlinked note changes when its target does, and the watcher names the target, or nothing
  // when the change is to a link outside the root or in a folder below it: the server must still
  // see it at the next search.
  it('sees the target of one that was there before it started edited in place', async () => {
    expect(await paths('trout')).toEqual(['20260100-brook.md', 'brook.md']);
    fs.appendFileSync(path.join(root, '20260100-brook.md'), '\nGrayling too.\n');
    expect(await paths('grayling')).toEqual(['20260100-brook.md', 'brook.md']);
  });

  it('sees a target edited in place, to the same size', async () => {
    write(root, '20260105-pond.md', note('55555555-5555-4555-8555-555555555555', 'Pond', 'Newts in the pond.'));
    fs.symlinkSync('20260105-pond.md', path.join(root, 'pond.md'));
    expect(await paths('newts')).toEqual(['20260105-pond.md', 'pond.md']);
    const target = path.join(root, '20260105-pond.md');
    const before = fs.statSync(target).size;
    fs.writeFileSync(target, fs.readFileSync(target, 'utf8').replace('Newts', 'Toads'));
    expect(fs.statSync(target).size).toBe(before);
    expect(await paths('toads')).toEqual(['20260105-pond.md', 'pond.md']);
    expect(await paths('newts')).toEqual([]);
  });

  it('sees a note reached through a link outside the corpus, and one in a folder below it, lead elsewhere', async () => {
    write(root, '20260106-wood.md', note('66666666-6666-4666-8666-666666666666', 'Wood', 'Owls in the wood.'));
    write(root, '20260107-marsh.md', note('77777777-7777-4777-8777-777777777777', 'Marsh', 'Bitterns and harriers over the marsh.'));
    const outside = tempDir();
    fs.mkdirSync(path.join(root, 'links'));
    fs.symlinkSync(path.join(root, '20260106-wood.md'), path.join(outside, 'hop.md'));
    fs.symlinkSync(path.join('..', '20260106-wood.md'), path.join(root, 'links', 'hop.md'));
    fs.symlinkSync(path.join(outside, 'hop.md'), path.join(root, 'via-outside.md'));
    fs.symlinkSync(path.join('links', 'hop.md'), path.join(root, 'via-folder.md'));
    expect(await paths('owls')).toEqual(['20260106-wood.md', 'via-folder.md', 'via-outside.md']);
    // Changed where the root's watcher sees nothing: both now lead to the marsh.
    for (const hop of [path.join(outside, 'hop.md'), path.join(root, 'links', 'hop.md')]) {
      fs.rmSync(hop);
      fs.symlinkSync(path.join(root, '20260107-marsh.md'), hop);
    }
    expect(await paths('harriers')).toEqual(['20260107-marsh.md', 'via-folder.md', 'via-outside.md']);
    expect(await paths('owls')).toEqual(['20260106-wood.md']);
    // Now leading out of the root: no longer a note.
    fs.writeFileSync(path.join(outside, 'away.md'), note('88888888-8888-4888-8888-888888888888', 'Away', 'Harriers far away.'));
    fs.rmSync(path.join(outside, 'hop.md'));
    fs.symlinkSync(path.join(outside, 'away.md'), path.join(outside, 'hop.md'));
    expect(await paths('harriers')).toEqual(['20260107-marsh.md', 'via-folder.md']);
  });

  it('never takes for a note a link to a file outside the corpus or in a folder below it, however it changes', async () => {
    const outside = tempDir();
    fs.mkdirSync(path.join(root, 'links'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'secret.md'), note('99999999-9999-4999-8999-999999999999', 'Secret', 'Ferrets kept elsewhere.'));
    write(root, 'links/below.md', note('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'Below', 'Ferrets kept below.'));
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'secret.md'));
    fs.symlinkSync(path.join('links', 'below.md'), path.join(root, 'below.md'));
    expect(await paths('ferrets')).toEqual([]);
    fs.appendFileSync(path.join(outside, 'secret.md'), '\nStoats too.\n');
    fs.appendFileSync(path.join(root, 'links', 'below.md'), '\nStoats too.\n');
    expect(await paths('stoats')).toEqual([]);
  });
});

describe('a warm MCP server searches notes with a second name outside the corpus (hard links)', () => {
  // An edit through a name outside the root gives the root's watcher no event: the server must
  // still see it at the next search.
  it('sees a note edited through its name outside the corpus, whether linked before it started or linked in since', async () => {
    expect(await paths('alders')).toEqual(['20260110-carr.md']);
    fs.appendFileSync(path.join(outside, 'carr.md'), '\nCranes over the carr.\n');
    expect(await paths('cranes')).toEqual(['20260110-carr.md']);
    fs.writeFileSync(path.join(outside, 'heath.md'), note('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'Heath', 'Gorse on the heath.'));
    fs.linkSync(path.join(outside, 'heath.md'), path.join(root, '20260111-heath.md'));
    expect(await paths('gorse')).toEqual(['20260111-heath.md']);
    fs.appendFileSync(path.join(outside, 'heath.md'), '\nAdders bask on the heath.\n');
    expect(await paths('adders')).toEqual(['20260111-heath.md']);
  });
});
