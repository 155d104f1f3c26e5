import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseNoteText } from '../src/corpus/note/format.js';
import { BIN, mdFiles, tempCorpus } from './helpers/corpus.js';
import { headingsAndCells } from './helpers/markdown.js';
import { fragmentDates, localDay, MOMENT } from './helpers/moments.js';

let client: Client;
let root: string;

beforeAll(async () => {
  root = tempCorpus();
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;

describe('MCP server over stdio', () => {
  it('lists every tool with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    // Without an LLM, the tools that could only park their input are not offered; without git, log is not.
    expect(tools.map((t) => t.name).sort()).toEqual([
      'archive',
      'context',
      'inbox',
      'inbox_done',
      'inbox_next',
      'inbox_skip',
      'ingest_accept',
      'ingest_next',
      'ingest_skip',
      'ingest_start',
      'ingest_status',
      'list',
      'merge',
      'overview',
      'read',
      'search',
      'supersede',
      'tend_check',
      'tend_repair',
      'tend_robustify',
      'write',
    ]);
    expect(tools.find((t) => t.name === 'search')!.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'write')!.annotations?.readOnlyHint).toBe(false);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(30);
      expect(t.inputSchema.type).toBe('object');
    }
    expect(tools.find((t) => t.name === 'search')!.inputSchema.required).toEqual(['query']);
  });

  it('writes, searches, reads, merges and supersedes like the command line', async () => {
    const london = await call('write', { slug: 'judy-london', title: 'Judy lives in London', body: 'Judy lives in London.', kind: 'entity_update' });
    expect(london.isError).toBe(false);
    expect(london.structuredContent).toMatchObject({ ok: true, action: 'created', note: { title: 'Judy lives in London', kind: 'entity_update' } });
    const paris = await call('write', { slug: 'judy-paris', title: 'Judy moved to Paris', body: 'Judy moved to Paris.' });
    const merged = await call('merge', { ref: paris.structuredContent.note.slug, fragment: 'She likes the Marais.', source: 'agent' });
    expect(merged.structuredContent).toMatchObject({ ok: true, action: 'merged' });
    const s = await call('supersede', { old: london.structuredContent.note.uuid, by: paris.structuredContent.note.path });
    expect(s.structuredContent).toMatchObject({ ok: true, action: 'superseded', old: { path: london.structuredContent.note.path } });
    const found = await call('search', { query: 'where does Judy live?' });
    expect(found.structuredContent.hits.map((h: any) => h.path)).toEqual([paris.structuredContent.note.path]);
    expect(found.content[0].text).toContain('Judy moved to Paris');
    const hist = await call('search', { query: 'judy', history: true });
    expect(hist.structuredContent.hits).toHaveLength(2);
    const read = await call('read', { ref: london.structuredContent.note.slug });
    expect(read.content[0].text.split('\n')[0]).toBe(`note: superseded by ${paris.structuredContent.note.path} (Judy moved to Paris)`);
    expect(read.structuredContent.note.body).toContain('Judy lives in London.');
    const listed = await call('list', {});
    expect(listed.structuredContent.notes.map((n: any) => n.path)).toEqual([paris.structuredContent.note.path]);
    const check = await call('tend_check', {});
    expect(check.structuredContent).toMatchObject({ ok: true, counts: expect.any(Object) });
  });

  it('merge writes a text that would pull the date line into a heading below that line', async () => {
    const dana = await call('write', { slug: 'dana-okafor', title: 'Dana Okafor', body: 'Dana Okafor leads the welding crew.' });
    const merged = await call('merge', { ref: 'dana-okafor', fragment: 'Night shift\n===========\nDana likes green tea.', source: 'probe-agent' });
    expect(merged.structuredContent).toMatchObject({ ok: true, action: 'merged' });
    const file = fs.readFileSync(path.join(root, dana.structuredContent.note.path), 'utf8');
    expect(file).toMatch(new RegExp(` crew\\.\\n\\n\\n---\\n\\*${MOMENT} \\(probe-agent\\):\\*\\n\\nNight shift\\n===========\\nDana likes green tea\\.\\n$`));
    expect(headingsAndCells(parseNoteText(file).body)).toEqual(['heading: Dana Okafor', 'heading: Night shift']);
    const found = await call('search', { query: 'green tea' });
    expect(found.structuredContent.hits[0]).toMatchObject({ path: dana.structuredContent.note.path, updated: localDay(fragmentDates(file)[0]) });
  });

  it("search snippets show the best passage, the note's own text or a fragment, without fragment markup", async () => {
    const padding = 'Filler about the weather and the harbour lights at dusk. '.repeat(6);
    const pim = await call('write', { slug: 'pim-jansen', title: 'Pim Jansen', body: `Pim Jansen repairs the ferry engines at the Zaandam yard. ${padding}` });
    await call('merge', { ref: 'pim-jansen', fragment: 'Pim likes black coffee.', source: 'probe-agent' });
    await call('merge', { ref: 'pim-jansen', fragment: 'Dawn crossing\n=============\nPim sails the first ferry.', source: 'probe-agent' });
    const own = (await call('search', { query: 'Pim ferry engines Zaandam' })).structuredContent.hits[0];
    expect(own.path).toBe(pim.structuredContent.note.path);
    expect(own.snippet).toMatch(/^Pim Jansen repairs the ferry engines at the Zaandam yard\. Filler/);
    const coffee = await call('search', { query: 'black coffee' });
    expect(coffee.structuredContent.hits[0].snippet).toBe('…Pim likes black coffee. Dawn crossing Pim sails the first ferry.');
    expect(coffee.content[0].text).toContain('…Pim likes black coffee. Dawn crossing Pim sails the first ferry.');
    expect(coffee.content[0].text).not.toMatch(/---|===|\*\d{4}-\d{2}-\d{2}|probe-agent/);
  });

  it('answers bad input with a clean tool error, the CLI message and no change', async () => {
    const before = mdFiles(root);
    const bad = await call('read', { ref: '../../etc/passwd' });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toEqual({
      ok: false,
      error: {
        code: 'invalid_ref',
        message: 'invalid ref: "../../etc/passwd" (a ref names a note in the corpus root, not a path, unless it is a note\'s title)',
        suggestions: [],
      },
    });
    const unknown = await call('read', { ref: 'nobody' });
    expect(unknown.content[0].text).toBe('error: unknown ref: nobody');
    const slug = await call('write', { slug: '???', title: 'T' });
    expect(slug.structuredContent.error.message).toBe('invalid slug: "???" has no letters or digits');
    const missing = await call('search', {});
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent.error.message).toBe('invalid arguments for search: "query" is required');
    const noLlm = await call('integrate', { content: 'Judy paints in Paris.', topic: 'Judy Paris' });
    expect(noLlm.isError).toBe(true);
    expect(noLlm.structuredContent.error.code).toBe('llm_unconfigured');
    expect(mdFiles(root)).toEqual(before);
  });
});
