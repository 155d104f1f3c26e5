import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, mdFiles, tempCorpus, tempDir } from './helpers/corpus.js';
import { startFakeLlm } from './helpers/fake-llm-server.js';
import { conversationOf } from './helpers/llm-stub.js';

// An agent's multi-day job over MCP stdio, as an editor's agent would run it: store facts about a
// user, change some, answer questions later, retract a mistake, see what is parked in the inbox;
// then study three documents through the ingest tools.

let client: Client;
let root: string;
let llm: Awaited<ReturnType<typeof startFakeLlm>>;
let modelDown = true;
let calls = 0;
/** Every text the agent was answered with, to check that none tells it to run a command line. */
const answers: string[] = [];

beforeAll(async () => {
  root = tempCorpus();
  llm = await startFakeLlm({
    record_candidates: (m) => {
      if (modelDown) return null;
      const cat = /cat is called (\w+)/.exec(conversationOf(m));
      return {
        worth_retaining: Boolean(cat),
        candidates: cat ? [{ kind: 'entity_update', topic: 'cat', title: `Cat ${cat[1]}`, slug: '', content: `The user's cat is called ${cat[1]}.` }] : [],
      };
    },
    record_merge_decision: () => ({ action: 'create', target: '', reason: 'new subject' }),
  });
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ZK_MEMORY_BACKEND: 'rg', ...llm.env },
    stderr: 'pipe',
  });
  client = new Client({ name: 'agent-trial', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await llm?.close();
});

async function call(name: string, args: Record<string, unknown> = {}): Promise<any> {
  calls++;
  const r = (await client.callTool({ name, arguments: args })) as any;
  answers.push(r.content[0].text);
  // The text is for people and the JSON for programs: the text never carries the JSON again.
  expect(r.content[0].text).not.toContain(JSON.stringify(r.structuredContent).slice(0, 40));
  return r;
}

describe("an agent keeps a user's memory over MCP", () => {
  it('is told how the memory works when it connects, and can look around', async () => {
    expect(client.getInstructions()).toMatch(/one thought per note/);
    expect(client.getInstructions()).toMatch(/supersede/);
    expect(client.getInstructions()).toMatch(/as_of .*valid_at/);
    const o = await call('overview');
    expect(o.structuredContent).toMatchObject({ ok: true, notes: 0, inbox: 0, llm: { configured: true, model: 'fake-model' }, backend: 'rg' });
  });

  it('stores facts, changes one, and the answers show the current value with the date it changed', async () => {
    await call('write', { slug: 'user-editor', title: 'The user edits in Helix', body: 'The user prefers the Helix editor.', kind: 'entity_update' });
    const atlas = await call('write', {
      slug: 'project-atlas',
      title: 'Atlas deadline is 13 March 2026',
      body: 'Project Atlas: deadline 13 March 2026. Owner: the user.',
      kind: 'entity_update',
    });
    await call('merge', { ref: 'project-atlas', fragment: 'Deadline moved: Atlas is now due on 20 March 2026.' });
    const found = await call('search', { query: 'Atlas project deadline' });
    const hit = found.structuredContent.hits[0];
    expect(hit.path).toBe(atlas.structuredContent.note.path);
    // The snippet carries the latest merged value, and says when the note last changed.
    expect(hit.snippet).toContain('20 March 2026');
    expect(hit.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(found.content[0].text).toContain('20 March 2026');

    // A fact that changes is superseded: the bare slug now names the current note.
    const next = await call('write', {
      slug: 'user-editor',
      title: 'The user now edits in Zed',
      body: 'The user switched to the Zed editor.',
      kind: 'entity_update',
      supersedes: 'user-editor',
    });
    expect(next.structuredContent).toMatchObject({ ok: true, action: 'superseded' });
    const read = await call('read', { ref: 'user-editor' });
    expect(read.structuredContent.note.title).toBe('The user now edits in Zed');
    expect(read.content[0].text).toMatch(/^note: supersedes \d{8}-user-editor\.md \(The user edits in Helix\)/);
    const asked = await call('search', { query: 'which editor does the user use', kind: 'entity_update' });
    const titles = asked.structuredContent.hits.map((h: any) => h.title);
    expect(titles[0]).toBe('The user now edits in Zed');
    expect(titles).not.toContain('The user edits in Helix');
  });

  it('retracts a note written by mistake to the archive, reversibly by hand', async () => {
    const junk = await call('write', { slug: 'junk', title: 'Typo note', body: 'asdf' });
    const a = await call('archive', { ref: 'junk', reason: 'written by mistake' });
    expect(a.structuredContent).toMatchObject({ ok: true, action: 'archived', archived: `.archive/${junk.structuredContent.note.path}` });
    expect(mdFiles(root)).not.toContain(junk.structuredContent.note.path);
    fs.renameSync(path.join(root, a.structuredContent.archived), path.join(root, junk.structuredContent.note.path));
    expect((await call('read', { ref: 'junk' })).structuredContent.note.title).toBe('Typo note');
  });

  it('sees what the LLM could not take, and drains it once the model is back', async () => {
    const r = await call('retain', { user: 'My cat is called Tofu.', assistant: 'Lovely name.' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent.spooled).toMatch(/^\.zk\/inbox\//);
    const box = await call('inbox');
    expect(box.structuredContent.items).toBe(1);
    expect(box.content[0].text).toContain('My cat is called Tofu.');
    modelDown = false;
    const drained = await call('inbox', { action: 'drain' });
    expect(drained.structuredContent).toMatchObject({ ok: true, drained: 1, kept: 0 });
    expect((await call('inbox')).structuredContent.items).toBe(0);
    expect((await call('search', { query: 'cat Tofu' })).structuredContent.hits[0].title).toBe('Cat Tofu');
  });

  it('pages through its notes', async () => {
    const page = await call('list', { limit: 2, offset: 1 });
    expect(page.structuredContent.notes).toHaveLength(2);
    expect(page.structuredContent.total).toBeGreaterThanOrEqual(4);
  });
});

describe('an agent studies three documents over MCP', () => {
  it('reads every window, writes notes in its own words, and is told clearly when it is done', async () => {
    const docs = tempDir('zk-docs-');
    const sections = (name: string, n: number) =>
      [
        '---',
        `title: ${name}`,
        '---',
        '',
        `# ${name}`,
        '',
        ...Array.from({ length: n }, (_, i) => [`## Part ${i + 1}`, '', `${name} part ${i + 1}: a short paragraph about step ${i + 1}.`, '']).flat(),
      ].join('\n');
    fs.writeFileSync(path.join(docs, 'deploy.md'), sections('Deploying', 6));
    fs.writeFileSync(path.join(docs, 'oncall.md'), sections('On call', 5));
    fs.writeFileSync(path.join(docs, 'backups.md'), sections('Backups', 4));
    // Cut one window per section, as before, these would be 3 frontmatter windows + 3 + 15 sections.
    const oldWindows = 3 + 3 + 15;
    const started = await call('ingest_start', { from: docs, name: 'handbook' });
    expect(started.structuredContent).toMatchObject({ ok: true, job: 'handbook' });
    let nexts = 0;
    for (;;) {
      const next = await call('ingest_next', { source: 'agent' });
      nexts++;
      if (next.structuredContent.done) {
        expect(next.structuredContent.window).toBeNull();
        expect(next.content[0].text).toMatch(/^done: every window of job handbook is done or skipped/);
        break;
      }
      const w = next.structuredContent.window;
      expect(w.text.length).toBeGreaterThan(0);
      const acc = await call('ingest_accept', {
        source: 'agent',
        title: `Notes on ${w.document.path} window ${w.index}`,
        body: `In my words: ${w.headings.join(' / ')}.`,
      });
      expect(acc.structuredContent).toMatchObject({ ok: true, action: 'created', window_status: 'done' });
      expect(nexts).toBeLessThan(40);
    }
    expect(nexts - 1).toBeLessThan(oldWindows);
    const status = await call('ingest_status', { job: 'handbook' });
    expect(status.structuredContent.totals).toMatchObject({ pending: 0 });
  });
});

describe('an agent that makes the mistakes agents make', () => {
  it('names a note by its title, is offered the note it mistyped, and a number in a slug stays part of the name', async () => {
    await call('write', { slug: 'dana-whitfield', title: 'Dana Whitfield', body: "Dana is the studio's client.", kind: 'entity_update' });
    await call('write', { slug: 'lisbon-trip', title: 'Lisbon/Porto 🚆 trip: April', body: 'Dana plans a trip to Lisbon and Porto in April.' });
    const byTitle = await call('read', { ref: 'Lisbon/Porto 🚆 trip: April' });
    expect(byTitle.structuredContent.note.title).toBe('Lisbon/Porto 🚆 trip: April');
    const typo = await call('read', { ref: 'dana-whitfeld' });
    expect(typo.isError).toBe(true);
    expect(typo.content[0].text).toMatch(/did you mean \d{8}-dana-whitfield\.md \(Dana Whitfield\)/);
    expect(typo.structuredContent.error.suggestions[0].title).toBe('Dana Whitfield');
    await call('write', { slug: 'mia-age', title: 'Mia is 7', body: 'Mia is seven.' });
    await call('write', { slug: 'mia-age-8', title: 'Mia is 8', body: 'Mia turned eight.', supersedes: 'mia-age' });
    const mia = await call('read', { ref: 'mia-age' });
    expect(mia.structuredContent.note.title).toBe('Mia is 7');
    expect(mia.structuredContent.chain.map((n: any) => n.title)).toEqual(['Mia is 8']);
  });

  it('links the way other tools do, and the links are understood', async () => {
    await call('write', { slug: 'studio-visit', title: 'Studio visit', body: 'Met [Dana](dana-whitfield) and kept [her card](<Dana Whitfield>).' });
    const visit = await call('read', { ref: 'studio-visit' });
    expect(visit.structuredContent.links.map((l: any) => l.resolved)).toEqual([true, true]);
    const dana = await call('read', { ref: 'dana-whitfield' });
    expect(dana.structuredContent.backlinks.map((b: any) => b.title)).toContain('Studio visit');
    const check = await call('tend_check');
    expect(check.content[0].text).toMatch(/unanchored links can be anchored: `tend_robustify \{"write":true\}`/);
  });

  it('retracts the middle of a chain, and the chain stays whole', async () => {
    await call('write', { slug: 'trip', title: 'Trip by plane in April', body: 'Dana flies to Lisbon.' });
    await call('write', { slug: 'trip', title: 'Trip by bus in April', body: 'Dana takes the bus.', supersedes: 'trip' });
    const last = await call('write', { slug: 'trip', title: 'Trip by train in April', body: 'Dana takes the train.', supersedes: 'trip' });
    const middle = await call('read', { ref: 'Trip by bus in April' });
    const a = await call('archive', { ref: middle.structuredContent.note.path, reason: 'never planned' });
    expect(a.structuredContent.relinked.length).toBeGreaterThan(0);
    const first = await call('read', { ref: 'Trip by plane in April' });
    expect(first.structuredContent.chain.filter((n: any) => !n.archived).map((n: any) => n.title)).toEqual(['Trip by train in April']);
    expect(first.content[0].text).not.toMatch(/not found/);
    const current = await call('read', { ref: last.structuredContent.note.path });
    expect(current.structuredContent.replaces.map((n: any) => n.title)).toEqual(expect.arrayContaining(['Trip by plane in April', 'Trip by bus in April']));
    const repair = await call('tend_repair', {});
    expect(repair.isError).toBe(false);
    expect(repair.content[0].text).toMatch(/"write": true/);
  });

  it('is told of a near-duplicate, of an empty or unknown call, and writes what it dates and merges cleanly', async () => {
    const dup = await call('write', { slug: 'dana-card', title: "Dana Whitfield's", body: 'Her card.' });
    expect(dup.structuredContent.similar.map((n: any) => n.title)).toEqual(['Dana Whitfield']);
    const empty = await call('search', { query: '  ' });
    expect([empty.isError, empty.structuredContent.error.code]).toEqual([true, 'usage']);
    const unknown = await call('recall', { query: 'Dana' });
    expect(unknown.content[0].text).toMatch(/unknown tool: "recall" \(the tools here: .*search/);
    const dated = await call('write', { slug: 'kickoff', title: 'Kickoff was on 1 October', body: 'The project started.', date: '2026-10-01' });
    expect(dated.structuredContent.note.path).toMatch(/^20261001-kickoff\.md$/);
    await call('merge', { ref: 'kickoff', fragment: 'Venue\n---\nThe kickoff was held in Porto.' });
    const hit = (await call('search', { query: 'kickoff venue Porto' })).structuredContent.hits[0];
    expect(hit.title).toBe('Kickoff was on 1 October');
    expect(hit.snippet).toMatch(/Porto/);
    expect(hit.snippet).not.toMatch(/---|\*\d{4}-\d{2}-\d{2}/);
    const raw = fs.readFileSync(path.join(root, '20261001-kickoff.md'), 'utf8');
    expect(raw).toMatch(/\n---\n\*\d{4}-\d{2}-\d{2}[^\n]*:\*\n\nVenue\n---\n/);
  });

  it('is told every next step as a tool call, never as a command line', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const text of answers) expect(text).not.toMatch(/zk-memory [a-z]|(^|[\s(`])--[a-z]/);
  });
});
