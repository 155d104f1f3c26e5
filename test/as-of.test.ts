import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execa } from 'execa';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, tempCorpus, tempDir, write, zk, zkProcess } from './helpers/corpus.js';
import { until } from './helpers/wait.js';

// The memory as it stood on a day (docs/format.md#as-of-a-date): read --as-of, list --as-of and
// read --timeline, on the command line and over MCP. The notes say when things happened in their
// frontmatter, written here by hand.

const UUID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [LISBON, PORTO, PARIS, JOB, E, F, G] = [1, 2, 3, 4, 5, 6, 7].map(UUID);

function note(fm: Record<string, string | string[]>, title: string, body: string): string {
  const lines = Object.entries(fm).map(([k, v]) => (Array.isArray(v) ? `${k}:\n${v.map((x) => `  - ${x}`).join('\n')}` : `${k}: ${v}`));
  return `---\n${lines.join('\n')}\n---\n\n# ${title}\n\n${body}\n`;
}

/**
 * Judy: Lisbon (10 Jan), superseded at 5 March by Porto (1 March, a fragment merged on 2 April),
 * superseded by Paris (1 June, true from 20 May). An old job note, archived on 1 May. E, replaced
 * by F (archived on 1 April), re-linked past it to G.
 */
function judyCorpus(): string {
  const root = tempCorpus();
  write(
    root,
    '20260110-judy-lisbon.md',
    note(
      { uuid: LISBON, title: 'Judy lives in Lisbon', date: '2026-01-10', superseded_by: PORTO, superseded_at: '2026-03-05T10:00:00Z' },
      'Judy lives in Lisbon',
      'Judy lives in Lisbon.',
    ),
  );
  write(
    root,
    '20260301-judy-porto.md',
    `${note({ uuid: PORTO, title: 'Judy lives in Porto', date: '2026-03-01', supersedes: [LISBON], superseded_by: PARIS }, 'Judy lives in Porto', 'Judy moved to Porto.')}\n---\n*2026-04-02T12:00:00Z (agent):* She rents near the river.\n`,
  );
  write(
    root,
    '20260601-judy-paris.md',
    note(
      { uuid: PARIS, title: 'Judy lives in Paris', date: '2026-06-01', supersedes: [PORTO], valid_from: '2026-05-20' },
      'Judy lives in Paris',
      'Judy moved to Paris.',
    ),
  );
  write(root, '20260101-e.md', note({ uuid: E, title: 'E', date: '2026-01-01', superseded_by: G, superseded_at: '2026-02-15' }, 'E', 'first'));
  write(root, '20260501-g.md', note({ uuid: G, title: 'G', date: '2026-05-01', supersedes: [F] }, 'G', 'third'));
  fs.mkdirSync(path.join(root, '.archive'));
  write(
    root,
    '.archive/20260201-old-job.md',
    note(
      { uuid: JOB, title: 'Judy works at the bakery', date: '2026-02-01', archived_at: '2026-05-01T12:00:00Z' },
      'Judy works at the bakery',
      'At the bakery.',
    ),
  );
  write(
    root,
    '.archive/20260215-f.md',
    note({ uuid: F, title: 'F', date: '2026-02-15', supersedes: [E], superseded_by: G, archived_at: '2026-04-01T12:00:00Z' }, 'F', 'second'),
  );
  return root;
}

const cli = (root: string, ...args: string[]) => zk(['--root', root, '--json', ...args]);
const paths = (r: any) => r.json.notes.map((n: any) => n.path);
/** A command's JSON answer without saying who answered it (the command line adds `server`). */
const answerOf = async (root: string, ...args: string[]) => {
  const { server, ...json } = (await cli(root, ...args)).json;
  return json;
};

describe('read --as-of on the command line', () => {
  it('gives the note as it stood then: superseded only once it was, later fragments cut, replaces and chain as of then', async () => {
    const root = judyCorpus();
    const early = await cli(root, 'read', 'judy-lisbon', '--as-of', '2026-03-02');
    expect(early.code).toBe(0);
    expect(early.json).toMatchObject({ as_of: '2026-03-02', note: { path: '20260110-judy-lisbon.md', superseded_by: null }, chain: [] });
    expect(early.json.note.raw).not.toMatch(/superseded/);
    expect(early.json.note.frontmatter.superseded_by).toBeUndefined();
    const later = await cli(root, 'read', 'judy-lisbon', '--as-of', '2026-03-06');
    expect(later.json.note.superseded_by).toBe(PORTO);
    // Porto itself was superseded only in June
    expect(later.json.chain).toMatchObject([{ path: '20260301-judy-porto.md', superseded_by: null, archived: false }]);
    const porto = await cli(root, 'read', 'judy-porto', '--as-of', '2026-03-02');
    expect(porto.json.replaces).toEqual([]);
    expect(porto.json.note.body).not.toContain('river');
    expect(porto.json.note.raw).not.toContain('river');
    const april = await cli(root, 'read', 'judy-porto', '--as-of', '2026-04-04');
    expect(april.json.note.body).toContain('She rents near the river.');
    expect(april.json.replaces).toMatchObject([{ path: '20260110-judy-lisbon.md' }]);
    expect(april.json.note.superseded_by).toBeNull();
    const text = await zk(['--root', root, 'read', 'judy-porto', '--as-of', '2026-03-02']);
    expect(text.stdout.split('\n')[0]).toBe('note: as of 2026-03-02');
    expect(text.stdout).not.toContain('river');
    // without --as-of, as it is today
    const now = await cli(root, 'read', 'judy-porto');
    expect(now.json.as_of).toBeUndefined();
    expect(now.json.note).toMatchObject({ superseded_by: PARIS, body: expect.stringContaining('river') });
  });

  it('reads an archived note as of a date before its archive, and refuses a note not written yet or archived by then', async () => {
    const root = judyCorpus();
    const job = await cli(root, 'read', 'old-job', '--as-of', '2026-03-01');
    expect(job.code).toBe(0);
    expect(job.json).toMatchObject({ as_of: '2026-03-01', note: { path: '.archive/20260201-old-job.md', title: 'Judy works at the bakery' } });
    const gone = await zk(['--root', root, 'read', 'old-job', '--as-of', '2026-05-02']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^error: \.archive\/20260201-old-job\.md was archived by 2026-05-02 \(on 2026-05-0[12]\)[^\n]*$/);
    const yet = await zk(['--root', root, '--json', 'read', 'judy-paris', '--as-of', '2026-05-31']);
    expect(yet.code).toBe(1);
    expect(yet.json).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: '20260601-judy-paris.md did not exist yet on 2026-05-31: it dates from 2026-06-01' },
    });
    // an archived note is not read without --as-of
    expect((await zk(['--root', root, 'read', 'old-job'])).code).toBe(1);
  });

  it('refuses a date that is not one: usage, exit 2, one line', async () => {
    const root = judyCorpus();
    for (const args of [
      ['read', 'judy-porto', '--as-of', '2026-02-30'],
      ['list', '--as-of', 'yesterday'],
      ['read', 'judy-porto', '--timeline', '--as-of', '2026-03-01'],
    ]) {
      const r = await zk(['--root', root, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: (invalid --as-of|--timeline)/);
    }
  });
});

describe('list --as-of on the command line', () => {
  it('lists the notes held then, archived ones that were still in, each with its superseded_by as of then', async () => {
    const root = judyCorpus();
    const march = await cli(root, 'list', '--as-of', '2026-03-02');
    expect(march.json).toMatchObject({ as_of: '2026-03-02', total: 4 });
    expect(paths(march)).toEqual(['20260110-judy-lisbon.md', '.archive/20260201-old-job.md', '.archive/20260215-f.md', '20260301-judy-porto.md']);
    const history = await cli(root, 'list', '--as-of', '2026-03-02', '--history');
    expect(paths(history)).toEqual(['20260101-e.md', ...paths(march)]);
    const june = await cli(root, 'list', '--as-of', '2026-06-02', '--history');
    expect(june.json.notes.map((n: any) => [n.path, n.superseded_by])).toEqual([
      ['20260101-e.md', G],
      ['20260110-judy-lisbon.md', PORTO],
      ['20260301-judy-porto.md', PARIS],
      ['20260501-g.md', null],
      ['20260601-judy-paris.md', null],
    ]);
    // Porto held true until Paris was written, though Paris says it became true earlier
    expect(paths(await cli(root, 'list', '--as-of', '2026-05-25'))).toEqual(['20260301-judy-porto.md', '20260501-g.md']);
    // today's list is unchanged: no archived notes, no as_of
    const now = await cli(root, 'list');
    expect(now.json.as_of).toBeUndefined();
    expect(paths(now)).toEqual(['20260501-g.md', '20260601-judy-paris.md']);
    expect((await zk(['--root', root, 'list', '--as-of', '2025-12-31'])).stdout).toBe('no notes were held on 2025-12-31');
  });

  it('takes a moment: a note superseded at 10:00 is current just before and superseded just after', async () => {
    const root = judyCorpus();
    const at = async (moment: string) => (await cli(root, 'list', '--as-of', moment, '--history')).json.notes.find((n: any) => n.uuid === LISBON).superseded_by;
    expect(await at('2026-03-05T09:59:00Z')).toBeNull();
    expect(await at('2026-03-05T10:01:00Z')).toBe(PORTO);
  });
});

describe('read --timeline on the command line', () => {
  it('gives the beliefs about the subject, oldest first, from any of its notes, with when each was recorded, superseded and true', async () => {
    const root = judyCorpus();
    const expected = [
      {
        path: '20260110-judy-lisbon.md',
        title: 'Judy lives in Lisbon',
        uuid: LISBON,
        recorded: '2026-01-10',
        superseded_at: '2026-03-05T10:00:00Z',
        valid_from: '2026-01-10',
        valid_until: '2026-03-01',
        current: false,
      },
      {
        path: '20260301-judy-porto.md',
        title: 'Judy lives in Porto',
        uuid: PORTO,
        recorded: '2026-03-01',
        superseded_at: '2026-06-01',
        valid_from: '2026-03-01',
        valid_until: '2026-05-20',
        current: false,
      },
      {
        path: '20260601-judy-paris.md',
        title: 'Judy lives in Paris',
        uuid: PARIS,
        recorded: '2026-06-01',
        superseded_at: null,
        valid_from: '2026-05-20',
        valid_until: null,
        current: true,
      },
    ];
    for (const ref of ['judy-lisbon', 'judy-porto', 'judy-paris']) {
      expect(await answerOf(root, 'read', ref, '--timeline')).toEqual({ ok: true, timeline: expected });
    }
    const text = await zk(['--root', root, 'read', 'judy-porto', '--timeline']);
    expect(text.stdout.split('\n')).toEqual([
      '20260110-judy-lisbon.md  Judy lives in Lisbon  (true from 2026-01-10 until 2026-03-01; recorded 2026-01-10; superseded 2026-03-05T10:00:00Z)',
      '20260301-judy-porto.md  Judy lives in Porto  (true from 2026-03-01 until 2026-05-20; recorded 2026-03-01; superseded 2026-06-01)',
      '20260601-judy-paris.md  Judy lives in Paris  (true from 2026-05-20; recorded 2026-06-01; current)',
    ]);
  });

  it('passes over an archived note of the chain without listing it', async () => {
    const root = judyCorpus();
    for (const ref of ['20260101-e', '20260501-g']) {
      expect((await cli(root, 'read', ref, '--timeline')).json.timeline.map((b: any) => [b.path, b.superseded_at, b.current])).toEqual([
        ['20260101-e.md', '2026-02-15', false],
        ['20260501-g.md', null, true],
      ]);
    }
  });
});

describe('as of a date over MCP', () => {
  let client: Client;
  let root: string;
  beforeAll(async () => {
    root = judyCorpus();
    client = new Client({ name: 'zk-memory-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: 'node',
        args: [BIN, 'mcp', '--root', root],
        stderr: 'pipe',
        env: { ...(process.env as Record<string, string>), ZK_MEMORY_SERVER: 'off', ZK_MEMORY_BACKEND: 'rg', ZK_MEMORY_LLM_BASE: '', ZK_MEMORY_LLM_MODEL: '' },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;

  it('read with as_of answers as the command line does; a note not yet written is an error answer', async () => {
    const r = await call('read', { ref: 'judy-porto', as_of: '2026-03-02' });
    expect(r.isError).toBe(false);
    expect(r.structuredContent).toEqual(await answerOf(root, 'read', 'judy-porto', '--as-of', '2026-03-02'));
    expect(r.content[0].text.split('\n')[0]).toBe('note: as of 2026-03-02');
    const job = await call('read', { ref: 'old-job', as_of: '2026-03-01' });
    expect(job.structuredContent.note.path).toBe('.archive/20260201-old-job.md');
    const yet = await call('read', { ref: 'judy-paris', as_of: '2026-05-31' });
    expect(yet.isError).toBe(true);
    expect(yet.content[0].text).toContain('did not exist yet on 2026-05-31');
  });

  it('list with as_of, read with timeline, and a date that is none refused', async () => {
    const l = await call('list', { as_of: '2026-03-02', history: true });
    expect(l.structuredContent).toMatchObject({ as_of: '2026-03-02', total: 5 });
    expect(l.structuredContent.notes.map((n: any) => n.path)).toEqual(paths(await cli(root, 'list', '--as-of', '2026-03-02', '--history')));
    const t = await call('read', { ref: 'judy-paris', timeline: true });
    expect(t.structuredContent).toEqual(await answerOf(root, 'read', 'judy-paris', '--timeline'));
    expect(t.content[0].text.split('\n')).toHaveLength(3);
    for (const [name, args] of [
      ['read', { ref: 'judy-porto', as_of: 'soon' }],
      ['list', { as_of: '2026-13-01' }],
    ] as const) {
      const bad = await call(name, args);
      expect(bad.isError).toBe(true);
      expect(bad.content[0].text).toMatch(/invalid as_of/);
    }
    const both = await call('read', { ref: 'judy-porto', as_of: '2026-03-02', timeline: true });
    expect(both.isError).toBe(true);
    expect(both.content[0].text).toContain('"timeline"');
  });
});

describe('as of a date from the resident server', () => {
  it('answers read --as-of, list --as-of and read --timeline as an in-process run does', async () => {
    const root = judyCorpus();
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    const env = { XDG_RUNTIME_DIR: runtime, ZK_MEMORY_BACKEND: 'fts' };
    const server = execa('node', [BIN, 'serve', '--root', root], { env: { ...process.env, ...env, ZK_MEMORY_SERVER: 'on' }, reject: false });
    try {
      await until('a server runs', async () => (await zk(['serve', '--status', '--json', '--root', root], { env })).json?.running === true, 30_000);
      for (const args of [
        ['read', 'judy-porto', '--as-of', '2026-03-02'],
        ['read', 'old-job', '--as-of', '2026-03-01'],
        ['list', '--as-of', '2026-03-02', '--history'],
        ['read', 'judy-porto', '--timeline'],
      ]) {
        const served = await zkProcess(['--root', root, '--json', ...args], { env: { ...env, ZK_MEMORY_SERVER: 'on' } });
        const local = await zk(['--root', root, '--json', ...args], { env: { ...env, ZK_MEMORY_SERVER: 'off' } });
        expect(served.json.server).toBe(true);
        expect({ ...served.json, server: false }).toEqual(local.json);
      }
      const refused = await zkProcess(['--root', root, 'read', 'judy-paris', '--as-of', '2026-05-31'], { env: { ...env, ZK_MEMORY_SERVER: 'on' } });
      expect(refused).toMatchObject({ code: 1, stderr: 'error: 20260601-judy-paris.md did not exist yet on 2026-05-31: it dates from 2026-06-01' });
    } finally {
      await zk(['serve', '--stop', '--root', root], { env });
      await server;
    }
  });
});

describe("dates written by hand that are not in the tool's own form", () => {
  it('dates a note with no such day by its file name, reads YAML timestamps, and a year-0 valid_from', async () => {
    const root = tempCorpus();
    write(root, '20260215-leap.md', note({ uuid: UUID(11), title: 'Leap', date: '2026-02-30' }, 'Leap', 'A day February does not have.'));
    write(
      root,
      '20260401-yaml-time.md',
      note({ uuid: UUID(12), title: 'Yaml time', date: '2026-04-01 10:00:00 +05:00' }, 'Yaml time', 'A timestamp as YAML writes it.'),
    );
    write(root, 'undated-spaced.md', note({ uuid: UUID(13), title: 'Spaced', date: '2026-04-02 08:00:00Z' }, 'Spaced', 'Space before the zone.'));
    write(root, '20260101-always.md', note({ uuid: UUID(14), title: 'Always', date: '2026-01-01', valid_from: '0000-01-01' }, 'Always', 'Water is wet.'));
    // Before any of them: none was held on a leap day two years earlier.
    expect((await cli(root, 'list', '--as-of', '2024-02-29')).json.notes).toEqual([]);
    const february = await cli(root, 'list', '--as-of', '2026-02-15');
    expect(paths(february).sort()).toEqual(['20260101-always.md', '20260215-leap.md']);
    expect(february.json.notes.find((n: any) => n.path === '20260215-leap.md').date).toBe('2026-02-15');
    // +05:00: written at 05:00 UTC.
    expect(paths(await cli(root, 'list', '--as-of', '2026-04-01T04:59:59Z'))).not.toContain('20260401-yaml-time.md');
    expect(paths(await cli(root, 'list', '--as-of', '2026-04-01T05:00:00Z'))).toContain('20260401-yaml-time.md');
    expect(paths(await cli(root, 'list', '--as-of', '2026-04-02T07:59:59Z'))).not.toContain('undated-spaced.md');
    expect(paths(await cli(root, 'list', '--as-of', '2026-04-02T08:00:00Z'))).toContain('undated-spaced.md');
    // True since year 0, so on a day before the note was written.
    const valid = await cli(root, 'search', 'wet', '--valid-at', '2024-02-29', '--backend', 'rg');
    expect(valid.json.hits.map((h: any) => h.path)).toEqual(['20260101-always.md']);
  });
});

describe('the days and moments a note may hold', () => {
  it('reads ISO and YAML forms, with and without a zone, and nothing else', async () => {
    const { momentMs } = await import('../src/corpus/note/moments.js');
    const utc = (iso: string) => Date.parse(iso);
    for (const [text, iso] of [
      ['2026-04-01 10:00:00 +05:00', '2026-04-01T05:00:00Z'],
      ['2026-04-01T10:00:00+05:00', '2026-04-01T05:00:00Z'],
      ['2026-04-01t10:00:00Z', '2026-04-01T10:00:00Z'],
      ['2026-04-01 10:00:00 +0530', '2026-04-01T04:30:00Z'],
      ['2026-04-01 10:00:00 -5', '2026-04-01T15:00:00Z'],
      ['2026-04-01  10:00:00.25   Z', '2026-04-01T10:00:00.250Z'],
      ['2026-12-02T04:51:07Z', '2026-12-02T04:51:07Z'],
    ])
      expect(momentMs(text), text).toBe(utc(iso));
    // A day and a moment without a zone are this host's time; years before 100 are not 19xx.
    expect(momentMs('2026-04-01 10:00')).toBe(new Date(2026, 3, 1, 10, 0).getTime());
    expect(new Date(momentMs('0000-01-01')!).getFullYear()).toBe(0);
    expect(new Date(momentMs('0099-12-31')!).getFullYear()).toBe(99);
    for (const text of [
      '2026-02-30',
      '2026-13-01',
      '2026-04-01T24:00:00Z',
      '2026-04-01T10:60Z',
      '2026-04-01T10:00:00+24:00',
      'yesterday',
      '20260401',
      '2026-4-1',
      '',
    ])
      expect(momentMs(text), text).toBeUndefined();
  });
});
