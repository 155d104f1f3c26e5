import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, zk } from './helpers/corpus.js';

// One subject whose belief changes four times over three months: where Judy lives. Merges come
// between, one change is a mistake retracted to the archive, one note is edited by hand. The
// memory is then asked what it held, and what was true, at every date that matters, on the
// command line and over MCP.

let root: string;
let client: Client;
const env = { ZK_MEMORY_SERVER: 'off', ZK_MEMORY_BACKEND: 'rg' };
/** Noon of a day, this host's time: the moment a step of the story happens. */
const noon = (day: string) => new Date(`${day}T12:00:00`).getTime();
const at = (day: string, ...args: string[]) => zk(['--root', root, ...args], { env, clock: () => noon(day) });
const cli = (...args: string[]) => zk(['--root', root, ...args], { env });
const mcp = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;
const titles = (hits: { title: string }[]) => hits.map((h) => h.title);

beforeAll(async () => {
  root = tempCorpus();
  const step = async (day: string, ...args: string[]) => {
    const r = await at(day, ...args);
    expect(r.code, `${day} ${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  await step('2026-09-01', 'write', 'judy-home', 'Judy lives in Paris', 'Judy lives in Paris.');
  await step('2026-09-10', 'merge', 'judy-home', 'She rents a flat near the Marais.');
  await step('2026-10-05', 'write', 'judy-home', 'Judy lives in Lyon', 'Judy moved to Lyon.', '--supersedes', 'judy-home', '--valid-from', '2026-10-01');
  await step('2026-10-20', 'write', 'judy-home', 'Judy lives in Nice', 'Judy moved to Nice.', '--supersedes', 'judy-home');
  await step('2026-10-21', 'archive', 'judy-home', '--reason', 'Nice was her sister');
  await step('2026-11-10', 'write', 'judy-home', 'Judy lives in London', 'Judy moved to London.', '--supersedes', 'judy-home', '--valid-from', '2026-11-01');
  await step('2026-11-12', 'merge', 'judy-home', 'Her flat is in Camden.');
  // A hand edit: another line in the London note, written by a person, undated.
  const london = fs.readdirSync(root).find((f) => f.endsWith('.md') && fs.readFileSync(path.join(root, f), 'utf8').includes('London'))!;
  fs.appendFileSync(path.join(root, london), '\nShe cycles to work.\n');
  await step('2026-12-01', 'write', 'judy-home', 'Judy lives in Berlin', 'Judy moved to Berlin.', '--supersedes', 'judy-home', '--valid-from', '2026-11-25');
  client = new Client({ name: 'time-test', version: '1.0.0' });
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

describe('what the memory held on a date (as of)', () => {
  const believed: [day: string, title: string][] = [
    ['2026-09-05', 'Judy lives in Paris'],
    ['2026-10-10', 'Judy lives in Lyon'],
    // The mistaken note, archived the next day: the memory did hold it.
    ['2026-10-20', 'Judy lives in Nice'],
    ['2026-10-22', 'Judy lives in Lyon'],
    ['2026-11-11', 'Judy lives in London'],
    ['2026-12-02', 'Judy lives in Berlin'],
  ];

  it.each(believed)('as of %s: %s, on both surfaces', async (day, title) => {
    const c = await cli('--json', 'search', 'where does Judy live', '--as-of', day);
    expect(titles(c.json.hits)).toEqual([title]);
    expect(c.json.hits[0].superseded_by).toBeNull();
    const m = await mcp('search', { query: 'where does Judy live', as_of: day });
    expect(titles(m.structuredContent.hits)).toEqual([title]);
    const l = await cli('--json', 'list', '--as-of', day);
    expect(titles(l.json.notes)).toEqual([title]);
  });

  it('before the first note there was nothing', async () => {
    expect((await cli('--json', 'search', 'Judy', '--as-of', '2026-08-31')).json.hits).toEqual([]);
    expect((await mcp('list', { as_of: '2026-08-31' })).structuredContent.notes).toEqual([]);
  });

  it('a note read as of a day holds only the fragments merged by then', async () => {
    const early = await cli('--json', 'read', 'Judy lives in Paris', '--as-of', '2026-09-05');
    expect(early.json.note.body).not.toContain('Marais');
    const later = await mcp('read', { ref: 'Judy lives in Paris', as_of: '2026-09-15' });
    expect(later.structuredContent.note.body).toContain('Marais');
    expect(later.structuredContent.note.superseded_by).toBeNull();
    // A search for a later fragment's words finds nothing before it was merged.
    expect((await cli('--json', 'search', 'Camden', '--as-of', '2026-11-11')).json.hits).toEqual([]);
    expect(titles((await cli('--json', 'search', 'Camden', '--as-of', '2026-11-13')).json.hits)).toEqual(['Judy lives in London']);
  });

  it('the mistaken note counts while it stood, and never after its archive', async () => {
    const then = await cli('--json', 'list', '--as-of', '2026-10-20');
    expect(titles(then.json.notes)).toEqual(['Judy lives in Nice']);
    const after = await cli('--json', 'list', '--as-of', '2026-10-22');
    expect(titles(after.json.notes)).toEqual(['Judy lives in Lyon']);
  });
});

describe('with the full-text index', () => {
  it('answers as of and valid at the same days the same way', async () => {
    const hits = async (...flags: string[]) => titles((await cli('--json', 'search', 'where does Judy live', '--backend', 'fts', ...flags)).json.hits);
    expect(await hits('--as-of', '2026-09-05')).toEqual(['Judy lives in Paris']);
    expect(await hits('--as-of', '2026-10-20')).toEqual(['Judy lives in Nice']);
    expect(await hits('--as-of', '2026-11-11')).toEqual(['Judy lives in London']);
    expect(await hits('--valid-at', '2026-10-03')).toEqual(['Judy lives in Lyon']);
    expect(await hits('--valid-at', '2026-11-28')).toEqual(['Judy lives in Berlin']);
  });
});

describe('what the files record', () => {
  it('superseding and archiving say when, and a hand edit belongs to the text it was written in', async () => {
    const paris = await cli('--json', 'read', 'Judy lives in Paris');
    expect(paris.json.note.frontmatter.superseded_at).toBe(new Date(noon('2026-10-05')).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    const archived = fs.readdirSync(path.join(root, '.archive'));
    expect(fs.readFileSync(path.join(root, '.archive', archived[0]), 'utf8')).toMatch(/^archived_at: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/m);
    // The hand-written line follows the fragment merged on 12 November: it is read with it.
    expect((await cli('--json', 'read', 'Judy lives in London', '--as-of', '2026-11-11')).json.note.body).not.toMatch(/cycles|Camden/);
    expect((await mcp('read', { ref: 'Judy lives in London', as_of: '2026-11-13' })).structuredContent.note.body).toMatch(/Camden[\s\S]*cycles/);
  });
});

describe('what was true on a date (valid at)', () => {
  const truths: [day: string, title: string][] = [
    ['2026-09-20', 'Judy lives in Paris'],
    ['2026-10-03', 'Judy lives in Lyon'],
    ['2026-11-05', 'Judy lives in London'],
    ['2026-11-28', 'Judy lives in Berlin'],
  ];

  it.each(truths)('valid at %s: %s, superseded ones marked', async (day, title) => {
    const c = await cli('--json', 'search', 'Judy lives', '--valid-at', day);
    expect(titles(c.json.hits)).toEqual([title]);
    expect(Boolean(c.json.hits[0].superseded_by)).toBe(title !== 'Judy lives in Berlin');
    const m = await mcp('search', { query: 'Judy lives', valid_at: day });
    expect(titles(m.structuredContent.hits)).toEqual([title]);
  });

  it('a retracted note is never knowledge', async () => {
    for (const day of ['2026-10-20', '2026-10-21', '2026-10-25']) {
      expect(titles((await cli('--json', 'search', 'Nice', '--valid-at', day)).json.hits)).toEqual([]);
    }
  });
});

describe('the chain of beliefs', () => {
  it('reads oldest first, each with its validity and when it was recorded, on both surfaces', async () => {
    const c = await cli('--json', 'read', 'judy-home', '--timeline');
    const line = c.json.timeline.map((b: any) => [b.title, b.valid_from, b.valid_until, b.current]);
    expect(line).toEqual([
      ['Judy lives in Paris', '2026-09-01', '2026-10-01', false],
      ['Judy lives in Lyon', '2026-10-01', '2026-11-01', false],
      ['Judy lives in London', '2026-11-01', '2026-11-25', false],
      ['Judy lives in Berlin', '2026-11-25', null, true],
    ]);
    const m = await mcp('read', { ref: 'Judy lives in Paris', timeline: true });
    expect(m.structuredContent.timeline.map((b: any) => b.title)).toEqual(line.map((l: any[]) => l[0]));
    expect((await cli('read', 'judy-home', '--timeline')).stdout).toMatch(/Judy lives in Lyon.*2026-10-01.*2026-11-01/);
  });
});

describe('a search in time with every backend', () => {
  it('finds the best note that qualifies however deep the plain ranking holds it', async () => {
    const deep = tempCorpus();
    const w = (...args: string[]) => zk(['--root', deep, 'write', ...args], { env });
    // Sixty notes written later say "rollback" more often than the one the day held.
    for (let i = 0; i < 60; i++)
      expect((await w(`later-${i}`, `Rollback drill ${i}`, 'rollback rollback rollback rollback', '--date', '2026-11-20')).code).toBe(0);
    await w('first-plan', 'The first plan', 'A rollback was planned once.', '--date', '2026-09-01');
    for (const backend of ['rg', 'fts']) {
      const r = await zk(['--root', deep, '--json', 'search', 'rollback', '--backend', backend, '--as-of', '2026-10-01', '--limit', '3'], { env });
      expect([backend, titles(r.json.hits)]).toEqual([backend, ['The first plan']]);
      const plain = await zk(['--root', deep, '--json', 'search', 'rollback', '--backend', backend, '--limit', '61'], { env });
      expect(titles(plain.json.hits).indexOf('The first plan')).toBeGreaterThan(40);
    }
  });
});
