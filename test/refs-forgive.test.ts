import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, zk } from './helpers/corpus.js';

// Refs and links as people and agents write them: a note's title names it, a mistyped ref is
// answered with the notes it most likely meant, a number in a slug is part of the name, and a
// Markdown link by slug or title finds its note. Each on both surfaces, and every hint in the
// words of the surface that gives it.

let root: string;
let client: Client;
const env = { ZK_MEMORY_SERVER: 'off', ZK_MEMORY_BACKEND: 'rg' };
const cli = (...args: string[]) => zk(['--root', root, ...args], { env });
const mcp = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;
const stem = (p: string) => p.replace(/^\d{8}-/, '').replace(/\.md$/, '');

beforeAll(async () => {
  root = tempCorpus();
  const w = async (...args: string[]) => expect((await cli('write', ...args)).code).toBe(0);
  await w('dana-whitfield', 'Dana Whitfield', 'Dana is a client of the studio.');
  await w('lisbon-trip', 'Lisbon/Porto 🚆 trip: April', 'Dana plans a trip by train.');
  await w('mia-age', 'Mia is 7', 'Mia is seven years old.');
  await w('mia-age-8', 'Mia is 8', 'Mia turned eight.', '--supersedes', 'mia-age');
  await w('team-python', 'The team writes Python', 'All services are in Python.');
  await w('team-python', 'The team writes Go', 'All services moved to Go.', '--supersedes', 'team-python');
  await w(
    'meeting',
    'Meeting with Dana',
    'Met [Dana](dana-whitfield), [her](<Dana Whitfield>), [again](Dana%20Whitfield), [typo](dana-whitfeld) and [a file](notes.txt).',
  );
  client = new Client({ name: 'refs-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: 'node',
      args: [BIN, 'mcp', '--root', root],
      stderr: 'pipe',
      env: { ...(process.env as Record<string, string>), ...env, ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
    }),
  );
});

afterAll(async () => {
  await client?.close();
});

describe('a title names its note', () => {
  it('exactly, case aside, slashes and emoji included, on both surfaces', async () => {
    const r = await cli('--json', 'read', 'lisbon/porto 🚆 TRIP: april');
    expect([r.code, r.json.note.title]).toEqual([0, 'Lisbon/Porto 🚆 trip: April']);
    const m = await mcp('read', { ref: 'Dana whitfield' });
    expect([m.isError, m.structuredContent.note.path]).toEqual([false, expect.stringMatching(/-dana-whitfield\.md$/)]);
    // A title still never makes a path of a ref.
    const out = await cli('read', '../etc/passwd');
    expect([out.code, out.stderr]).toEqual([1, expect.stringMatching(/^error: invalid ref: "\.\.\/etc\/passwd"/)]);
  });

  it('names the current note when an old one bears the same title too', async () => {
    await cli('write', 'trip-by-train', 'Lisbon/Porto 🚆 trip: April', 'Dana goes by train after all.', '--supersedes', 'lisbon-trip');
    const r = await cli('--json', 'read', 'LISBON/PORTO 🚆 TRIP: APRIL');
    expect(stem(r.json.note.path)).toBe('trip-by-train');
    expect(r.json.replaces.map((n: any) => stem(n.path))).toEqual(['lisbon-trip']);
  });
});

describe('a ref that names nothing', () => {
  it('is answered with the notes it most likely meant, in the message and as suggestions', async () => {
    const r = await cli('--json', 'read', 'dana-whitfeld');
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('not_found');
    expect(r.json.error.message).toMatch(/^unknown ref: dana-whitfeld; did you mean \d{8}-dana-whitfield\.md \(Dana Whitfield\)/);
    expect(r.json.error.suggestions[0]).toMatchObject({ path: expect.stringMatching(/-dana-whitfield\.md$/), title: 'Dana Whitfield' });
    expect(r.json.error.suggestions.length).toBeLessThanOrEqual(3);
    const m = await mcp('read', { ref: 'lisbon train trip' });
    expect(m.isError).toBe(true);
    expect(m.structuredContent.error.suggestions.map((s: any) => stem(s.path))).toContain('trip-by-train');
  });

  it('suggests nothing when nothing is near, and echoes a long ref cut short', async () => {
    const r = await cli('--json', 'read', `zzqx-${'y'.repeat(5000)}`);
    expect(r.json.error.suggestions).toEqual([]);
    expect(r.json.error.message.length).toBeLessThan(300);
  });
});

describe('a number at the end of a slug', () => {
  it('is part of the name unless the clash path gave it', async () => {
    // `mia-age-8` was chosen by its writer: `mia-age` names the note it replaced, with its banner.
    const mia = await cli('read', 'mia-age');
    expect(mia.stdout).toMatch(/^note: superseded by \d{8}-mia-age-8\.md/);
    expect((await mcp('read', { ref: 'mia-age' })).structuredContent.note.title).toBe('Mia is 7');
    // `team-python-2` took the slug with a counter when it replaced `team-python`: the bare slug names it.
    const team = await cli('--json', 'read', 'team-python');
    expect(team.json.note.title).toBe('The team writes Go');
    expect((await mcp('read', { ref: 'team-python' })).structuredContent.note.title).toBe('The team writes Go');
  });
});

describe('Markdown links by slug or title', () => {
  it('resolve like refs for read and backlinks, on both surfaces', async () => {
    const r = await cli('--json', 'read', 'meeting');
    const links = r.json.links.map((l: any) => [l.target, l.resolved, l.path && stem(l.path)]);
    expect(links).toEqual([
      ['dana-whitfield', true, 'dana-whitfield'],
      ['Dana Whitfield', true, 'dana-whitfield'],
      ['Dana Whitfield', true, 'dana-whitfield'],
      ['dana-whitfeld', false, null],
    ]);
    const back = await mcp('read', { ref: 'dana-whitfield' });
    expect(back.structuredContent.backlinks.map((b: any) => stem(b.path))).toEqual(['meeting']);
  });

  it('are checked by tend check and written in the canonical form by tend robustify', async () => {
    const check = await cli('--json', 'tend', 'check');
    const mine = check.json.findings.filter((f: any) => f.file.endsWith('-meeting.md'));
    expect(mine.map((f: any) => [f.target, f.verdict])).toEqual([
      ['dana-whitfield', 'unanchored'],
      ['Dana Whitfield', 'unanchored'],
      ['Dana%20Whitfield', 'unanchored'],
      ['dana-whitfeld', 'broken'],
    ]);
    const overMcp = await mcp('tend_check', {});
    expect(overMcp.content[0].text).toMatch(/unanchored links can be anchored: `tend_robustify \{"write":true\}`/);
    expect(overMcp.content[0].text).not.toMatch(/zk-memory|--write/);
    expect((await cli('tend', 'robustify', '--write')).code).toBe(0);
    const text = fs.readFileSync(path.join(root, fs.readdirSync(root).find((f) => f.endsWith('-meeting.md'))!), 'utf8');
    expect(text).toMatch(/\[Dana\]\(\d{8}-dana-whitfield\.md\) <!-- uuid: [0-9a-f-]{36} -->/);
    expect(text).toMatch(/\[her\]\(<\d{8}-dana-whitfield\.md>\) <!-- uuid: [0-9a-f-]{36} -->/);
    expect(text).toContain('[typo](dana-whitfeld) and [a file](notes.txt)');
    const after = await cli('--json', 'tend', 'check');
    expect(after.json.findings.filter((f: any) => f.file.endsWith('-meeting.md')).map((f: any) => f.verdict)).toEqual(['ok', 'ok', 'ok', 'broken']);
  });
});

describe('hints speak the surface that gives them', () => {
  it('a taken slug: merge and --unique on the CLI, the tools and their arguments over MCP', async () => {
    const c = await cli('write', 'meeting', 'Another meeting', 'text');
    expect(c.stderr).toMatch(/\(add to it with `merge meeting`, or pass --unique for a note of its own\)$/);
    const m = await mcp('write', { slug: 'meeting', title: 'Another meeting', body: 'text' });
    expect(m.content[0].text).toMatch(/add to it with `merge \{"ref":"meeting","fragment":"…"\}`, or call write again with "unique": true/);
    expect(m.content[0].text).not.toMatch(/--unique/);
  });

  it('a search that finds nothing, and a reading window', async () => {
    expect((await cli('search', 'xylophone')).stdout).toMatch(/or --backend fts\)$/);
    expect((await mcp('search', { query: 'xylophone' })).content[0].text).toMatch(/or "backend": "fts"\)$/);
    const doc = path.join(root, '..', `${path.basename(root)}-guide.md`);
    fs.writeFileSync(doc, '# Guide\n\nDeploys happen on Tuesdays.\n');
    try {
      await mcp('ingest_start', { from: doc });
      const next = (await mcp('ingest_next', {})).content[0].text;
      expect(next).toMatch(/`ingest_accept \{"window":"d1-w1","title":"…","body":"…"\}`/);
      expect(next).toMatch(/`ingest_skip \{"window":"d1-w1","reason":"…"\}`/);
      expect(next).not.toMatch(/zk-memory ingest|--window/);
      expect((await cli('ingest', 'next', '--window', 'd1-w1')).stdout).toMatch(/zk-memory ingest accept --window d1-w1 --title "TITLE" "BODY"/);
    } finally {
      fs.rmSync(doc, { force: true });
    }
  });
});
