import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instructionsFor } from '../src/mcp/instructions.js';
import { TOOLS } from '../src/mcp/tools.js';
import { BIN, mdFiles, tempCorpus, tempDir, zk } from './helpers/corpus.js';
import { fragmentDates, localDay, MOMENT } from './helpers/moments.js';

// What an agent met at the edges of the tools, on both surfaces: empty and huge queries, tools a
// corpus cannot serve, calls that name no tool, the date of a fact, where a merged fragment comes
// from, titles that repeat a live note's, and replacing a note under its own slug.

const NO_LLM = { ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' };
// Configured, never called: the tools offered depend on the configuration only.
const SOME_LLM = { ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: 'http://127.0.0.1:9/v1', ZK_MEMORY_LLM_MODEL: 'never-called' };

const clients: Client[] = [];

async function connect(root: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: 'node',
    args: [BIN, 'mcp', '--root', root],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'zk-memory-edges', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

afterAll(async () => {
  for (const c of clients) await c.close();
});

const caller =
  (client: Client) =>
  async (name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as any;
/** The command line on `root`, in this process (the MCP server a test compares it with runs in its own). */
const cliIn = (root: string) => (args: string[], input?: string) => zk(['--root', root, ...args], { env: NO_LLM, input });

async function gitCorpus(): Promise<string> {
  const root = tempCorpus();
  await execa('git', ['init', '-q', root]);
  return root;
}

let plain: string;
let call: ReturnType<typeof caller>;
let plainClient: Client;

beforeAll(async () => {
  plain = tempCorpus();
  plainClient = await connect(plain, NO_LLM);
  call = caller(plainClient);
});

describe('an empty search query is a usage error', () => {
  it("over MCP: an error answer, in the tool's own terms", async () => {
    for (const query of ['', '   ', '\n\t']) {
      const r = await call('search', { query });
      expect(r.isError, JSON.stringify(query)).toBe(true);
      expect(r.structuredContent.error.code).toBe('usage');
      expect(r.structuredContent.error.message).toBe('query is empty: pass a question or some words as "query": `search {"query":"where does Judy live"}`');
    }
  });

  it('on the command line: exit 2 and one line, for an argument, blanks or empty stdin', async () => {
    const cli = cliIn(plain);
    for (const [args, input] of [[['search', '']], [['search', '  ', ' ']], [['search', '-'], '\n']] as [string[], string?][]) {
      const r = await cli(args, input);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe("error: query is empty: pass a question or some words: `zk-memory search 'where does Judy live'`");
      expect(r.stdout).toBe('');
    }
    const j = await cli(['search', '', '--json']);
    expect(j.json).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/^query is empty: /) } });
  });
});

describe('a long query that finds nothing is repeated cut short', () => {
  const query = `${'zebra '.repeat(800)}end`;
  const shown = `"${query.slice(0, 200)}…"`;

  it('over MCP: 200 characters and …, the JSON keeps it whole', async () => {
    const r = await call('search', { query });
    expect(r.structuredContent.query).toBe(query);
    expect(r.content[0].text.startsWith(`no notes match ${shown} (`)).toBe(true);
    expect(r.content[0].text.length).toBeLessThan(300);
  });

  it('on the command line the same', async () => {
    const r = await cliIn(plain)(['search', query]);
    expect(r.code).toBe(1);
    expect(r.stdout.startsWith(`no notes match ${shown} (try fewer`)).toBe(true);
    // A query at the limit is shown whole.
    const exact = await cliIn(plain)(['search', query.slice(0, 200)]);
    expect(exact.stdout).toContain(`"${query.slice(0, 200)}" (`);
  });
});

describe('what a session offers follows what the corpus and the server have', () => {
  it('without git and an LLM: no log, integrate or retain, and the instructions name none of them', async () => {
    const names = (await plainClient.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('log');
    expect(names).not.toContain('integrate');
    expect(names).toContain('write');
    const told = plainClient.getInstructions()!;
    expect(told).not.toMatch(/\blog\b|integrate|retain/);
    expect(told).toContain('This session has no LLM: keep memories yourself with write, merge and supersede.');
    const o = await call('overview');
    expect(o.structuredContent).toMatchObject({
      ok: true,
      git: { work_tree: false, reason: 'the corpus is not in a git work tree' },
      llm: { configured: false },
      server: { running: false },
    });
    const text = o.content[0].text;
    expect(text).toContain('LLM: not configured (keep memories yourself: `write` a new note, `merge` into one, `supersede` one that changed)');
    expect(text).not.toMatch(/integrate|retain/);
    expect(text).toContain('git: none (the corpus is not in a git work tree)');
    expect(text).toMatch(/^no server runs /m);
  });

  it('in a git work tree with an LLM: log, integrate and retain, and the instructions tell of them', async () => {
    const root = await gitCorpus();
    const client = await connect(root, SOME_LLM);
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const t of ['log', 'integrate', 'retain']) expect(names).toContain(t);
    const told = client.getInstructions()!;
    expect(told).toContain('log shows what happened to the memory');
    expect(told).toMatch(/integrate \(a careful write/);
    expect(told).not.toContain('This session has no LLM');
    const o = await caller(client)('overview');
    expect(o.structuredContent).toMatchObject({ git: { work_tree: true }, llm: { configured: true, model: 'never-called' } });
    expect(o.content[0].text).toContain('git: the corpus is in a git work tree');
    expect(o.content[0].text).toContain('LLM: never-called');
  });

  it('the instructions of a session that only reads name no tool that writes', () => {
    const reading = TOOLS.filter((t) => t.readOnly).map((t) => t.name);
    const told = instructionsFor(reading);
    for (const t of ['write', 'merge', 'supersede', 'archive', 'ingest_start', 'integrate']) expect(told).not.toMatch(new RegExp(`\\b${t}\\b`));
    expect(told).toMatch(/call search/);
    expect(instructionsFor(TOOLS.map((t) => t.name))).toMatch(/\bwrite\b.*\bmerge\b/s);
  });

  it('the log tool, called on a corpus without git anyway, fails as the command does', async () => {
    const r = await call('log');
    expect(r.isError).toBe(true);
    const cli = await cliIn(plain)(['log']);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toBe(`error: ${r.structuredContent.error.message}`);
  });
});

describe('a call that names no tool of the session', () => {
  it('an unknown tool is told the tools this session offers', async () => {
    const r = await call('wirte', { slug: 'x', title: 'X' });
    expect(r.isError).toBe(true);
    const offered = (await plainClient.listTools()).tools.map((t) => t.name);
    expect(r.structuredContent.error).toEqual({ code: 'usage', message: `unknown tool: "wirte" (the tools here: ${offered.join(', ')})` });
    expect(r.structuredContent.error.message).not.toMatch(/\blog\b|integrate/);
  });

  describe('over raw JSON-RPC', () => {
    let server: ResultPromise;
    const lines: string[] = [];
    const waiting: ((line: string) => void)[] = [];
    let id = 0;
    const nextLine = () => {
      const line = lines.shift();
      return line !== undefined ? Promise.resolve(line) : new Promise<string>((resolve) => waiting.push(resolve));
    };
    const request = async (method: string, params?: unknown) => {
      const message: Record<string, unknown> = { jsonrpc: '2.0', id: ++id, method };
      if (params !== undefined) message.params = params;
      server.stdin!.write(`${JSON.stringify(message)}\n`);
      return JSON.parse(await nextLine());
    };

    beforeAll(async () => {
      server = execa('node', [BIN, 'mcp', '--root', plain], { env: NO_LLM, reject: false, buffer: false });
      let rest = '';
      server.stdout!.setEncoding('utf8');
      server.stdout!.on('data', (chunk: string) => {
        const parts = (rest + chunk).split('\n');
        rest = parts.pop() ?? '';
        for (const line of parts) (waiting.shift() ?? ((l: string) => void lines.push(l)))(line);
      });
      await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
      server.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    });

    afterAll(async () => {
      server.stdin!.end();
      await server;
    });

    it('no name, a name that is no string, no params, arguments that are no object: invalid params in one line', async () => {
      const cases: [unknown, RegExp][] = [
        [{ arguments: {} }, /^invalid tools\/call: "name" must name a tool \(the tools here: search, context, read, list, write, /],
        [{ name: 7 }, /^invalid tools\/call: "name" must name a tool \(the tools here: /],
        [undefined, /^invalid tools\/call: params must be an object \{"name": TOOL, "arguments": \{…\}\} \(the tools here: /],
        [{ name: 'search', arguments: ['judy'] }, /^invalid tools\/call: "arguments" of search must be an object$/],
      ];
      for (const [params, message] of cases) {
        const r = await request('tools/call', params);
        expect(r.error.code, JSON.stringify(params)).toBe(-32602);
        expect(r.error.message).toMatch(message);
        expect(r.error.message).not.toContain('\n');
        expect(r.error.message).not.toMatch(/\blog\b/);
      }
      // An unknown method is still not found, and the server serves on.
      expect((await request('resources/list')).error.code).toBe(-32601);
      const list = await request('tools/call', { name: 'list', arguments: {} });
      expect(list.result.isError).toBe(false);
    });
  });
});

describe('write takes the date a fact dates from', () => {
  it('over MCP, validated as the command line validates --date', async () => {
    const w = await call('write', { slug: 'moved-in', title: 'Dana moved in on 3 March', body: 'Dana moved in.', date: '2025-03-03' });
    expect(w.structuredContent.note).toMatchObject({ path: '20250303-moved-in.md', date: '2025-03-03' });
    expect(fs.readFileSync(path.join(plain, '20250303-moved-in.md'), 'utf8')).toMatch(/^date: 2025-03-03$/m);
    const before = mdFiles(plain);
    for (const date of ['2025-02-30', '3 March 2025', '2025-3-3']) {
      const bad = await call('write', { slug: 'bad-date', title: 'Bad date', date });
      expect(bad.isError, date).toBe(true);
      const cli = await cliIn(plain)(['write', 'bad-date', 'Bad date', '--date', date]);
      expect(cli.code).toBe(2);
      expect(bad.structuredContent.error).toEqual({ code: 'usage', message: `invalid date: ${JSON.stringify(date)} (expected YYYY-MM-DD)` });
      expect(cli.stderr).toBe(`error: ${bad.structuredContent.error.message}`);
    }
    expect(mdFiles(plain)).toEqual(before);
  });
});

describe('a fragment merged by ingest records its source document', () => {
  const source = () => {
    const dir = tempDir('zk-src-');
    fs.writeFileSync(path.join(dir, 'install.md'), '# Install guide\n\n## Linux\n\nUse the package manager; the tarball is for air-gapped hosts.\n');
    return dir;
  };
  const fragmentSources = (root: string, file: string) => {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    return /\nfragment_sources:\n((?: {2}.*\n)+)/.exec(text)?.[1];
  };

  it('over MCP', async () => {
    const root = tempCorpus();
    const mcp = caller(await connect(root, NO_LLM));
    const target = (await mcp('write', { slug: 'installing', title: 'Installing the agent', body: 'Installed by hand so far.' })).structuredContent.note;
    await mcp('ingest_start', { from: source(), name: 'handbook' });
    await mcp('ingest_next');
    const a = await mcp('ingest_accept', { merge: 'installing', body: 'On Linux, use the package manager.' });
    expect(a.structuredContent).toMatchObject({ ok: true, action: 'merged', note: { path: target.path } });
    // The entry carries the moment on the fragment's date line.
    const read = await mcp('read', { ref: 'installing' });
    const [at] = fragmentDates(read.structuredContent.note.body);
    expect(at).toMatch(new RegExp(`^${MOMENT}$`));
    expect(localDay(at)).toBe(target.date);
    expect(fragmentSources(root, target.path)).toBe(
      `  - date: ${at}\n    source_doc: install.md\n    source_path: Install guide > Linux\n    ingest_window: handbook/d1-w1\n`,
    );
    expect(read.structuredContent.note.body.endsWith(`\n---\n*${at}:* On Linux, use the package manager.\n`)).toBe(true);
    // The note still reads as before: its title, and its uuid.
    expect(read.structuredContent.note).toMatchObject({ title: 'Installing the agent', uuid: target.uuid });
    const trace = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(trace.find((t) => t.event === 'ingest_accept')).toMatchObject({ action: 'merged', source_doc: 'install.md' });
    expect(trace.find((t) => t.event === 'merge')).toMatchObject({ origin: { source_doc: 'install.md', ingest_window: 'handbook/d1-w1' } });
  });

  it('on the command line, a second fragment adding a second entry', async () => {
    const root = tempCorpus();
    const cli = cliIn(root);
    await cli(['write', 'installing', 'Installing the agent', 'Installed by hand so far.']);
    const from = source();
    await cli(['ingest', 'start', '--from', from, '--name', 'handbook']);
    await cli(['ingest', 'next']);
    const a = await cli(['ingest', 'accept', '--merge', 'installing', '--keep', 'On Linux, use the package manager.', '--json']);
    expect(a.json).toMatchObject({ ok: true, action: 'merged', window_status: 'open' });
    const b = await cli(['ingest', 'accept', '--merge', 'installing', '--date', '2026-01-05', 'The tarball is for air-gapped hosts.', '--json']);
    expect(b.json).toMatchObject({ ok: true, action: 'merged' });
    const listed = fragmentSources(root, a.json.note.path)!;
    expect(listed.match(/^ {2}- date: /gm)).toHaveLength(2);
    expect(listed).toMatch(/- date: 2026-01-05\n {4}source_doc: install\.md\n/);
    // A plain merge adds no entry.
    await cli(['merge', 'installing', 'Checked again by hand.']);
    expect(fragmentSources(root, a.json.note.path)).toBe(listed);
  });
});

describe("a title like a live note's is written, and the similar note named", () => {
  it('over MCP: similar in the JSON and a line in the text with the tools to use', async () => {
    const root = tempCorpus();
    const mcp = caller(await connect(root, NO_LLM));
    const first = (await mcp('write', { slug: 'judy-cat', title: "Judy's cat" })).structuredContent.note;
    const other = await mcp('write', { slug: 'judy-dog', title: "Judy's dog" });
    expect(other.structuredContent.similar).toEqual([]);
    expect(other.content[0].text).toBe(other.structuredContent.note.path);
    const w = await mcp('write', { slug: 'judys-cats', title: 'JUDY: cats!' });
    expect(w.isError).toBe(false);
    expect(w.structuredContent.similar).toEqual([{ path: first.path, title: "Judy's cat", uuid: first.uuid }]);
    const stem = w.structuredContent.note.slug;
    expect(w.content[0].text.split('\n')).toEqual([
      w.structuredContent.note.path,
      `note: ${w.structuredContent.note.path} has a title like ${first.path} (Judy's cat): if it is the same subject, add to it instead with \`merge {"ref":"${first.slug}","fragment":"…"}\` and retract the new note with \`archive {"ref":"${stem}"}\``,
    ]);
    // A superseded note is no longer a live one.
    await mcp('supersede', { old: first.path, by: w.structuredContent.note.path });
    expect((await mcp('write', { slug: 'cats-of-judy', title: 'Judy cats' })).structuredContent.similar.map((s: any) => s.path)).toEqual([
      w.structuredContent.note.path,
    ]);
  });

  it('on the command line: a warning on stderr naming the note and the commands, similar in the JSON', async () => {
    const root = tempCorpus();
    const cli = cliIn(root);
    const first = (await cli(['write', 'release-day', 'Releases go out on Tuesdays', '--json'])).json.note;
    const w = await cli(['write', 'release-days', 'releases go out on tuesday', 'Again.']);
    expect(w.code).toBe(0);
    const made = mdFiles(root).find((f) => f.endsWith('-release-days.md'))!;
    expect(w.stdout).toBe(made);
    expect(w.stderr).toBe(
      `warning: ${made} has a title like ${first.path} (Releases go out on Tuesdays): if it is the same subject, add to it instead with \`zk-memory merge ${first.slug} TEXT\` and retract the new note with \`zk-memory archive ${made.replace(/\.md$/, '')}\``,
    );
    const j = await cli(['write', 'releases', 'Releases: go out on Tuesdays.', '--json']);
    expect(j.json.similar.map((s: any) => s.path).sort()).toEqual([first.path, made].sort());
    const unlike = await cli(['write', 'release-night', 'Releases go out on Tuesday nights', '--json']);
    expect(unlike.json.similar).toEqual([]);
    expect(unlike.stderr).toBe('');
  });
});

describe('replacing a note under its own slug', () => {
  it('is what the write tool says, and what it does', async () => {
    const write = (await plainClient.listTools()).tools.find((t) => t.name === 'write')!;
    expect(write.description).toContain(
      'To replace the note X with a new version, write with slug X and supersedes X: the new note takes the next free name (X-2) and the bare slug X then names it.',
    );
    expect(write.inputSchema.properties).toHaveProperty('date');
    const old = (await call('write', { slug: 'standup', title: 'Standup is at 9:30' })).structuredContent.note;
    const next = await call('write', { slug: 'standup', title: 'Standup moved to 10:00', supersedes: 'standup' });
    expect(next.structuredContent).toMatchObject({
      action: 'superseded',
      note: { path: old.path.replace(/standup\.md$/, 'standup-2.md') },
      target: { path: old.path },
    });
    expect((await call('read', { ref: 'standup' })).structuredContent.note.title).toBe('Standup moved to 10:00');
  });
});
