import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, write, zkProcess } from './helpers/corpus.js';

// The MCP server keeps the index open and watches the root between calls, checking every note
// file only as a backstop: whatever another program changes must still be found by the very next
// search. The default settings (a full check before every search for a fresh process) are in force.

let client: Client;
let root: string;

const note = (uuid: string, title: string, body: string) => `---\nuuid: ${uuid}\ntitle: ${title}\ndate: 2026-01-01\n---\n\n# ${title}\n\n${body}\n`;

beforeAll(async () => {
  root = tempCorpus();
  write(root, '20260101-lake.md', note('11111111-1111-4111-8111-111111111111', 'Lake', 'A walk by the lake.'));
  write(root, '20260102-hill.md', note('22222222-2222-4222-8222-222222222222', 'Hill', 'A climb up the hill.'));
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ZK_MEMORY_BACKEND: 'fts', ZK_MEMORY_INDEX_SCAN_SECONDS: '', ZK_MEMORY_INDEX_SCAN_BELOW: '', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
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

async function titles(query: string): Promise<string[]> {
  const r = (await client.callTool({ name: 'search', arguments: { query } })) as any;
  expect(r.structuredContent.ok).toBe(true);
  expect(r.structuredContent.backend).toBe('fts');
  return r.structuredContent.hits.map((h: any) => h.title);
}

describe('a warm MCP server searches a corpus others change', () => {
  it('finds a note another process of the tool wrote, and one it merged into', async () => {
    expect((await zkProcess(['--root', root, 'write', 'okapi', 'Okapi', 'An okapi at the zoo.'])).code).toBe(0);
    expect(await titles('okapi')).toEqual(['Okapi']);
    expect((await zkProcess(['--root', root, 'merge', '20260102-hill.md', 'Quinces grow on the hill.'])).code).toBe(0);
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

  it("finds a note an editor replaced under its own name", async () => {
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
    expect((await zkProcess(['--root', root, 'index', '--rebuild'])).code).toBe(0);
    expect(await titles('herons')).toEqual(['Fen']);
    fs.appendFileSync(path.join(root, '20260103-fen.md'), '\nBitterns boom in spring.\n');
    expect(await titles('bitterns')).toEqual(['Fen']);
    fs.rmSync(path.join(root, '20260103-fen.md'));
    expect(await titles('herons')).toEqual([]);
  });
});
