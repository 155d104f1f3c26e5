import fs from 'node:fs';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { mcpClient } from './helpers/mcp.js';
import { until } from './helpers/wait.js';
import { spool } from '../src/pipelines/inbox.js';

// `context` (docs/cli.md#context, docs/search.md#context-bundles): the memory an agent should see,
// cut to a token budget, from the command line, over MCP and through the resident server.

const UUID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A note file as a person or another program writes it. */
function note(root: string, name: string, n: number, title: string, body: string, extra = ''): string {
  write(root, name, `---\nuuid: ${UUID(n)}\ndate: ${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}\n${extra}---\n# ${title}\n\n${body}\n`);
  return name;
}

const ENV = { ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_SERVER: 'off' };
const context = async (root: string, ...args: string[]) => {
  const r = await zk(['--root', root, '--json', 'context', ...args], { env: ENV });
  expect(r.code, r.stderr).toBe(0);
  return r.json;
};
/** The documented estimate: a token per digit, and the UTF-8 bytes of the rest divided by 2.5, rounded up. */
const estimate = (text: string) => {
  const digits = text.replace(/[^0-9]/g, '').length;
  return digits + Math.ceil((Buffer.byteLength(text, 'utf8') - digits) / 2.5);
};

/**
 * A small graph: the hit (the only note about "quasar"), a note it links to and one that note
 * links to, a note linking to the hit, a superseded note the hit links to, and its successor.
 */
function graph(): string {
  const root = tempCorpus();
  note(
    root,
    '20260101-hit.md',
    1,
    'Quasar observing plan',
    'We point the telescope at the quasar. See [the mount](20260101-mount.md) and [the old site](20260101-old-site.md).',
  );
  note(root, '20260101-mount.md', 2, 'Equatorial mount', 'The mount tracks the sky; its motor is described in [the motor](20260101-motor.md).');
  note(root, '20260101-motor.md', 3, 'Stepper motor', 'A stepper motor drives the right ascension axis.');
  note(root, '20260101-log.md', 4, 'Observing log', 'Last night: [the plan](20260101-hit.md) worked well.');
  note(root, '20260101-old-site.md', 5, 'Observing site is the hill', 'We observe from the hill.', `superseded_by: ${UUID(6)}\n`);
  note(root, '20260102-new-site.md', 6, 'Observing site is the lake', 'We observe from the lake now.', `supersedes:\n  - ${UUID(5)}\n`);
  note(root, '20260101-other.md', 7, 'Unrelated cooking note', 'Bread needs flour, water and salt.');
  return root;
}

const whys = (r: any) => Object.fromEntries(r.notes.map((n: any) => [n.path, n.why]));

describe('context for a query', () => {
  it('hops 0, 1 and 2: the hits, then what they link to and what links to them, and the current belief of a superseded note', async () => {
    const root = graph();
    expect(whys(await context(root, 'quasar', '--hops', '0'))).toEqual({ '20260101-hit.md': 'hit' });
    const one = await context(root, 'quasar');
    expect(whys(one)).toEqual({
      '20260101-hit.md': 'hit',
      '20260101-mount.md': 'link',
      '20260101-old-site.md': 'link',
      '20260102-new-site.md': 'current',
      '20260101-log.md': 'backlink',
    });
    // best first: the hit, then its neighbours in the order found, the current belief right after the note it replaced
    expect(one.notes.map((n: any) => n.path)).toEqual([
      '20260101-hit.md',
      '20260101-mount.md',
      '20260101-old-site.md',
      '20260102-new-site.md',
      '20260101-log.md',
    ]);
    expect(one.text).toContain('## Observing site is the hill (20260101-old-site.md, link; superseded)');
    const two = await context(root, 'quasar', '--hops', '2');
    expect(whys(two)).toMatchObject({ '20260101-motor.md': 'link' });
    expect(two.notes.at(-1).path).toBe('20260101-motor.md');
    expect(whys(two)).not.toHaveProperty('20260101-other.md');
    // each note is cited by its file name and title, with its text
    expect(one.text).toContain('## Quasar observing plan (20260101-hit.md, hit)\nWe point the telescope at the quasar.');
  });

  it('--json gives {ok, budget, tokens, notes, text, inbox}, every note with path, title, uuid, why, tokens and cut; the text view is the bundle', async () => {
    const root = graph();
    const r = await context(root, 'quasar', '--budget', '400');
    expect(Object.keys(r).sort()).toEqual(['budget', 'inbox', 'notes', 'ok', 'server', 'text', 'tokens']);
    expect(r).toMatchObject({ ok: true, budget: 400, inbox: 0, server: false, tokens: estimate(r.text) });
    expect(r.notes[0]).toEqual({ path: '20260101-hit.md', title: 'Quasar observing plan', uuid: UUID(1), why: 'hit', tokens: expect.any(Number), cut: false });
    for (const n of r.notes) expect(Object.keys(n).sort()).toEqual(['cut', 'path', 'title', 'tokens', 'uuid', 'why']);
    const text = await zk(['--root', root, 'context', 'quasar', '--budget', '400'], { env: ENV });
    expect(text.stdout).toBe(r.text.trim());
  });

  it('is the same bundle for the same corpus and arguments', async () => {
    const root = graph();
    for (const args of [['quasar', '--hops', '2'], [], ['observing', '--budget', '120']]) {
      const first = await context(root, ...args);
      expect(await context(root, ...args)).toEqual(first);
    }
  });

  it('--as-of: the memory as it stood then, the note superseded since a current hit', async () => {
    const root = tempCorpus();
    note(root, '20260101-judy.md', 1, 'Judy lives in Berlin', 'Judy lives in Berlin.', `superseded_by: ${UUID(2)}\n`);
    note(root, '20260601-judy-2.md', 2, 'Judy lives in Paris', 'Judy lives in Paris.', `supersedes:\n  - ${UUID(1)}\n`);
    expect(whys(await context(root, 'where does judy live'))).toEqual({ '20260601-judy-2.md': 'hit' });
    expect(whys(await context(root, 'where does judy live', '--as-of', '2026-03-01'))).toEqual({ '20260101-judy.md': 'hit' });
    const then = await context(root, '--as-of', '2026-03-01');
    expect(then.text).toMatch(/^# Memory as of 2026-03-01: 1 notes/);
    expect(whys(then)).toEqual({ '20260101-judy.md': 'recent' });
    const bad = await zk(['--root', root, '--json', 'context', 'judy', '--as-of', 'yesterday'], { env: ENV });
    expect([bad.code, bad.json.error.code]).toEqual([2, 'usage']);
  });

  it('searches a very long query (a prompt with a pasted file) by its start', async () => {
    const root = graph();
    const pasted = `quasar ${'lorem ipsum dolor sit amet '.repeat(2000)}`;
    const r = await context(root, pasted, '--hops', '0');
    expect(whys(r)).toEqual({ '20260101-hit.md': 'hit' });
    expect(r.text.split('\n')[0].length).toBeLessThan(230);
  });

  it('refuses a budget or hops it cannot take, in one line', async () => {
    const root = graph();
    for (const args of [
      ['--hops', '3'],
      ['--budget', '0'],
      ['--budget', 'many'],
    ]) {
      const r = await zk(['--root', root, 'context', 'quasar', ...args], { env: ENV });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(1);
    }
  });
});

describe('the budget', () => {
  it('is never exceeded, whatever the budget, with and without a query', async () => {
    const root = graph();
    const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} about the quasar. It has two sentences, the second longer than the first.`).join('\n\n');
    note(root, '20260103-long.md', 8, 'Long quasar notes', long);
    note(root, '20260104-wide.md', 9, 'Wide characters about the quasar', '類星體的觀測。'.repeat(200));
    for (const budget of [1, 3, 10, 25, 60, 100, 250, 600, 1000, 5000]) {
      for (const query of [['quasar'], ['quasar', '--hops', '2'], []]) {
        const r = await context(root, ...query, '--budget', String(budget));
        const where = `${query.join(' ')} at ${budget}`;
        expect(r.tokens, where).toBeLessThanOrEqual(budget);
        expect(r.tokens, where).toBe(estimate(r.text));
        expect(
          r.notes.reduce((s: number, n: any) => s + n.tokens, 0),
          where,
        ).toBeLessThanOrEqual(budget);
      }
    }
    // a large budget holds every note of the graph whole
    const all = await context(root, 'quasar', '--hops', '2', '--budget', '20000');
    expect(all.notes.every((n: any) => !n.cut)).toBe(true);
    expect(all.notes.map((n: any) => n.path)).toContain('20260103-long.md');
  });

  it('cuts a note that does not fit whole at a paragraph or sentence boundary, and marks it cut', async () => {
    const root = tempCorpus();
    const paragraphs = Array.from({ length: 30 }, (_, i) => `Nebula fact number ${i} is here. And a second sentence for fact ${i}!`);
    note(root, '20260101-nebula.md', 1, 'Nebula facts', paragraphs.join('\n\n'));
    const r = await context(root, 'nebula', '--budget', '200');
    expect(r.notes).toEqual([expect.objectContaining({ path: '20260101-nebula.md', cut: true })]);
    const entry = r.text.slice(r.text.indexOf('## Nebula facts'));
    expect(entry).toMatch(/\n\[…cut\]\n$/);
    const kept = entry.split('\n').slice(1, -2).join('\n');
    // a start of the note's text that ends where a sentence does
    expect(paragraphs.join('\n\n').startsWith(kept)).toBe(true);
    expect(kept).toMatch(/[.!]$/);
    expect(kept.length).toBeGreaterThan(100);
    // a budget where not even a sentence fits leaves the note out rather than break a sentence
    const tiny = await context(root, 'nebula', '--budget', '15');
    expect(tiny.notes).toEqual([]);
    // one long paragraph is cut between its sentences
    const root2 = tempCorpus();
    const sentences = Array.from({ length: 60 }, (_, i) => `Comet sentence ${i} ends here.`);
    note(root2, '20260101-comet.md', 1, 'Comet', sentences.join(' '));
    const c = await context(root2, 'comet', '--budget', '100');
    const body = c.text.slice(c.text.indexOf('## Comet')).split('\n')[1];
    expect(c.notes[0].cut).toBe(true);
    expect(sentences.join(' ').startsWith(body)).toBe(true);
    expect(body).toMatch(/ends here\.$/);
    // a note of megabytes is cut as fast as a short one (its boundaries found once, the fit by halving)
    note(root2, '20260102-galaxy.md', 2, 'Galaxy', 'Galaxy sentence here. '.repeat(100_000));
    const g = await context(root2, 'galaxy', '--budget', '300');
    expect(g.notes).toEqual([expect.objectContaining({ path: '20260102-galaxy.md', cut: true })]);
    expect(g.tokens).toBeLessThanOrEqual(300);
  });
});

describe('context: the best note first', () => {
  it('takes the best hit whole when it cannot be cut to its share of the budget, before a note of less value', async () => {
    const root = tempCorpus();
    // one line, no sentence ends: about 300 tokens, more than half of 500, and nowhere to cut it
    const line = Array.from({ length: 75 }, (_, i) => `pulsar${i}`).join(' ');
    note(root, '20260101-pulsar.md', 1, 'Pulsar timing table', `${line} [[20260101-clock]]`);
    note(root, '20260101-clock.md', 2, 'Atomic clock', 'The clock keeps time.');
    const r = await context(root, 'pulsar0', '--budget', '500');
    expect(r.notes.map((n: any) => [n.path, n.why, n.cut])).toEqual([
      ['20260101-pulsar.md', 'hit', false],
      ['20260101-clock.md', 'link', false],
    ]);
    expect(r.tokens).toBeLessThanOrEqual(500);
    // where it does not fit at all, the note after it still does
    const small = await context(root, 'pulsar0', '--budget', '100');
    expect(small.notes.map((n: any) => n.path)).toEqual(['20260101-clock.md']);
  });
});

describe('context at the start of a session', () => {
  it('says what the corpus is, then pinned notes, current beliefs changed lately, recent notes, and what waits in the inbox', async () => {
    const root = graph();
    note(root, '20250101-rules.md', 10, 'House rules', 'Always answer in English.', 'pinned: true\n');
    note(root, '20250102-not-pinned.md', 11, 'Not pinned', 'pinned is only true when it says true.', 'pinned: "yes"\n');
    spool(root, [{ type: 'text', text: 'User: remember that the dome opens at 9.\nAssistant: noted.' }], {
      source: 'claude-code session 42',
      reason: 'no LLM',
    });
    spool(root, [{ type: 'text', text: 'Second input.' }], { source: 'cli', reason: 'no LLM' });
    const r = await context(root);
    expect(r.inbox).toBe(2);
    expect(r.text).toMatch(/^# Memory: 9 notes \(9 without a kind\), 1 superseded, 0 archived\nInbox: 2 inputs waiting/);
    expect(r.text).toContain('from claude-code session 42: User: remember that the dome opens at 9.');
    const byWhy = (why: string) => r.notes.filter((n: any) => n.why === why).map((n: any) => n.path);
    expect(r.notes[0]).toMatchObject({ path: '20250101-rules.md', why: 'pinned' });
    expect(byWhy('pinned')).toEqual(['20250101-rules.md']);
    expect(byWhy('current')).toEqual(['20260102-new-site.md']);
    expect(byWhy('recent').length).toBeGreaterThan(3);
    expect(byWhy('recent')).not.toContain('20260101-old-site.md'); // superseded: not a belief of now
    expect(r.notes.map((n: any) => n.why)).toEqual([...byWhy('pinned').map(() => 'pinned'), 'current', ...byWhy('recent').map(() => 'recent')]);
    // the most recently changed notes first
    fs.utimesSync(path.join(root, '20260101-other.md'), new Date(), new Date(Date.now() + 60_000));
    const again = await context(root);
    expect(again.notes.find((n: any) => n.why === 'recent').path).toBe('20260101-other.md');
    // read back from the metadata cache this time: still pinned
    expect(again.notes[0]).toMatchObject({ path: '20250101-rules.md', why: 'pinned' });
  });
});

describe('context over MCP and through the resident server', () => {
  const clients: Client[] = [];
  const servers: ResultPromise[] = [];
  afterAll(async () => {
    for (const c of clients) await c.close();
  });
  afterEach(async () => {
    for (const p of servers.splice(0)) {
      p.kill('SIGTERM');
      await p.catch(() => undefined);
    }
  });

  it('the MCP tool context answers the bundle as text and as structured content', async () => {
    const root = graph();
    const call = await mcpClient(clients, root);
    const r = await call('context', { query: 'quasar', budget: 300, hops: 2 });
    expect(r.isError).toBe(false);
    const cli = await context(root, 'quasar', '--budget', '300', '--hops', '2');
    const { server: _server, ...expected } = cli;
    expect(r.structuredContent).toMatchObject(expected);
    expect(r.content[0].text).toBe(cli.text.trim());
    const session = await call('context', {});
    expect(session.structuredContent.text).toMatch(/^# Memory: 7 notes/);
    // an argument out of range is refused, by the schema or by the tool
    const bad = await call('context', { query: 'quasar', hops: 5 }).catch((err: Error) => ({ isError: true, err }));
    expect(bad.isError).toBe(true);
  });

  it("is answered by the corpus's resident server, with the same bundle as in-process", async () => {
    const root = graph();
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    const env = { ZK_MEMORY_SERVER: 'on', XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts' };
    servers.push(execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env }, reject: false }));
    note(root, '20250101-rules.md', 10, 'House rules', 'Always answer in English.', 'pinned: true\n');
    await until('the server answers', async () => (await zk(['serve', '--status', '--json', '--root', root], { env })).json?.running === true, 30_000);
    for (const args of [['quasar', '--hops', '2'], []]) {
      const served = await zkProcess(['--root', root, '--json', 'context', ...args], { env });
      expect(served.json, served.stderr).toMatchObject({ ok: true, server: true });
      const here = await zk(['--root', root, '--json', 'context', ...args], { env: { ...env, ZK_MEMORY_SERVER: 'off' } });
      expect({ ...served.json, server: false }).toEqual(here.json);
    }
    const session = await zkProcess(['--root', root, '--json', 'context'], { env });
    expect(session.json.notes[0]).toMatchObject({ path: '20250101-rules.md', why: 'pinned' });
    // a note written meanwhile is in the next bundle
    note(root, '20260105-pulsar.md', 12, 'Pulsar timing', 'The pulsar blinks every second; see [the plan](20260101-hit.md).');
    const next = await zkProcess(['--root', root, '--json', 'context', 'pulsar'], { env });
    expect(next.json.notes.map((n: any) => [n.path, n.why])).toEqual([
      ['20260105-pulsar.md', 'hit'],
      ['20260101-hit.md', 'link'],
    ]);
  });
});
