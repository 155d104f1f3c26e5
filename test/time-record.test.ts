import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseNoteText } from '../src/corpus/note/format.js';
import { writeNote } from '../src/corpus/ops/write.js';
import { integrate, toCandidate } from '../src/pipelines/integrate.js';
import { startFakeLlm } from './helpers/fake-llm-server.js';
import { shownIds, stubLlm } from './helpers/llm-stub.js';
import { BIN, mdFiles, snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { mcpClient } from './helpers/mcp.js';
import { expectMomentSince, MOMENT } from './helpers/moments.js';

// When things happened and when they held true, as the tool records them in the notes
// (docs/format.md#time): on the command line, over MCP and by the judge.

const text = (root: string, name: string) => fs.readFileSync(path.join(root, name), 'utf8');
const frontmatterOf = (root: string, name: string) => parseNoteText(text(root, name)).frontmatter;
const cli = (root: string, args: string[], env: Record<string, string> = {}) => zk(['--root', root, ...args], { env: { ZK_MEMORY_BACKEND: 'rg', ...env } });

describe('validity on the command line', () => {
  it('write --valid-from and --valid-until set the keys; a bad date or an end before the start is refused in one line, writing nothing', async () => {
    const root = tempCorpus();
    const w = await cli(root, [
      '--json',
      'write',
      'judy-london',
      'Judy lives in London',
      'London.',
      '--date',
      '2026-05-01',
      '--valid-from',
      '2026-03-01',
      '--valid-until',
      '2026-09-30T18:00:00Z',
    ]);
    expect(w.code, w.stderr).toBe(0);
    expect(text(root, w.json.note.path)).toMatch(/\nvalid_from: 2026-03-01\nvalid_until: 2026-09-30T18:00:00Z\n---\n/);
    expect(frontmatterOf(root, w.json.note.path)).toMatchObject({ valid_from: '2026-03-01', valid_until: '2026-09-30T18:00:00Z' });
    const before = snapshot(root);
    const bad = await cli(root, ['write', 'judy-x', 'Judy X', '--valid-from', 'since October']);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'error: invalid --valid-from: "since October" (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)',
    ]);
    const noDay = await cli(root, ['write', 'judy-x', 'Judy X', '--valid-until', '2026-02-30']);
    expect([noDay.code, noDay.stderr.trim().split('\n')]).toEqual([
      2,
      ['error: invalid --valid-until: "2026-02-30" (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)'],
    ]);
    const backwards = await cli(root, ['write', 'judy-x', 'Judy X', '--valid-from', '2026-03-01', '--valid-until', '2026-02-01']);
    expect([backwards.code, backwards.stderr]).toEqual([
      2,
      'error: --valid-until 2026-02-01 is before --valid-from 2026-03-01: a note cannot stop holding true before it starts',
    ]);
    expect(snapshot(root)).toEqual(before);
  });

  it('supersede --valid-from sets it on the new note beside supersedes; the old note gets superseded_at; a bad date changes nothing', async () => {
    const root = tempCorpus();
    const old = (await cli(root, ['--json', 'write', 'judy-london', 'Judy lives in London', 'London.', '--date', '2026-01-10'])).json.note;
    const next = (await cli(root, ['--json', 'write', 'judy-paris', 'Judy lives in Paris', 'Paris.', '--date', '2026-11-02'])).json.note;
    const before = snapshot(root);
    const bad = await cli(root, ['supersede', old.path, '--by', next.path, '--valid-from', '10/01/2026']);
    expect([bad.code, bad.stderr]).toEqual([2, 'error: invalid --valid-from: "10/01/2026" (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)']);
    expect(snapshot(root)).toEqual(before);
    const started = Date.now();
    const r = await cli(root, ['--json', 'supersede', old.path, '--by', next.path, '--valid-from', '2026-10-01']);
    expect(r.code, r.stderr).toBe(0);
    expect(text(root, next.path)).toContain(`supersedes:\n  - ${old.uuid}\nvalid_from: 2026-10-01\n---\n`);
    expectMomentSince(frontmatterOf(root, old.path).superseded_at as string, started);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });

  it('write --supersedes takes --valid-from for the new note', async () => {
    const root = tempCorpus();
    const old = (await cli(root, ['--json', 'write', 'judy', 'Judy lives in London', 'London.', '--date', '2026-01-10'])).json.note;
    const r = await cli(root, ['--json', 'write', 'judy', 'Judy lives in Paris', 'Paris.', '--supersedes', 'judy', '--valid-from', '2026-10-01']);
    expect(r.code, r.stderr).toBe(0);
    expect(frontmatterOf(root, r.json.note.path)).toMatchObject({ supersedes: [old.uuid], valid_from: '2026-10-01' });
    expect(frontmatterOf(root, old.path).superseded_at).toMatch(new RegExp(`^${MOMENT}$`));
  });
});

/** Two notes whose validity no note can have, written by hand: one ends before it starts, one holds true before the note it supersedes. */
function impossibleCorpus(root: string) {
  write(
    root,
    'ends-early.md',
    '---\nuuid: 11111111-1111-1111-1111-111111111111\ntitle: Ends early\ndate: 2026-03-01\nvalid_from: 2026-03-01\nvalid_until: 2026-02-01\n---\n\n# Ends early\n',
  );
  write(
    root,
    'old.md',
    '---\nuuid: 22222222-2222-2222-2222-222222222222\ntitle: Old\ndate: 2026-05-01\nsuperseded_by: 33333333-3333-3333-3333-333333333333\n---\n\n# Old\n',
  );
  write(
    root,
    'new.md',
    '---\nuuid: 33333333-3333-3333-3333-333333333333\ntitle: New\ndate: 2026-06-01\nsupersedes:\n  - 22222222-2222-2222-2222-222222222222\nvalid_from: 2026-04-01\n---\n\n# New\n',
  );
  // Possible: a successor that starts on the day its predecessor did, and a note without validity keys.
  write(
    root,
    'a.md',
    '---\nuuid: 44444444-4444-4444-4444-444444444444\ntitle: A\ndate: 2026-05-01\nsuperseded_by: 55555555-5555-5555-5555-555555555555\n---\n\n# A\n',
  );
  write(
    root,
    'b.md',
    '---\nuuid: 55555555-5555-5555-5555-555555555555\ntitle: B\ndate: 2026-05-01\nsupersedes:\n  - 44444444-4444-4444-4444-444444444444\n---\n\n# B\n',
  );
}

const IMPOSSIBLE = [
  {
    file: 'ends-early.md',
    line: 6,
    label: 'valid_until',
    target: '2026-02-01',
    uuid: '11111111-1111-1111-1111-111111111111',
    verdict: 'impossible',
    reason: 'valid_until 2026-02-01 is before valid_from 2026-03-01',
  },
  {
    file: 'new.md',
    line: 7,
    label: 'valid_from',
    target: '2026-04-01',
    uuid: '33333333-3333-3333-3333-333333333333',
    verdict: 'impossible',
    reason: 'new.md holds true from 2026-04-01, before old.md, which it supersedes, began (date 2026-05-01)',
  },
];

describe('tend check reports impossible validity (CLI)', () => {
  it('counts it, fails the check, reads the notes as they are; repair leaves them to a person', async () => {
    const root = tempCorpus();
    impossibleCorpus(root);
    const check = await cli(root, ['--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.counts).toMatchObject({ broken: 0, stale: 0, impossible: 2 });
    expect(check.json.findings.filter((f: { verdict: string }) => f.verdict === 'impossible')).toEqual(IMPOSSIBLE);
    const shown = await cli(root, ['tend', 'check']);
    expect(shown.stdout).toContain('ends-early.md:6: impossible: [valid_until](2026-02-01) (valid_until 2026-02-01 is before valid_from 2026-03-01)\n');
    expect(shown.stdout).toContain('impossible validity is left for a person to correct in the notes named (repair does not change it)');
    // Read as they are.
    expect((await cli(root, ['--json', 'read', 'ends-early.md'])).json.note.title).toBe('Ends early');
    expect((await cli(root, ['--json', 'list'])).json.notes.map((n: { path: string }) => n.path)).toEqual(['b.md', 'ends-early.md', 'new.md']);
    const before = snapshot(root);
    const repair = await cli(root, ['tend', 'repair', '--write']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(snapshot(root)).toEqual(before);
    // Corrected by hand, the check passes.
    fs.writeFileSync(path.join(root, 'ends-early.md'), text(root, 'ends-early.md').replace('valid_until: 2026-02-01', 'valid_until: 2026-04-01'));
    fs.writeFileSync(path.join(root, 'new.md'), text(root, 'new.md').replace('valid_from: 2026-04-01', 'valid_from: 2026-05-20'));
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });
});

describe('keys written by a newer build survive every rewrite (CLI)', () => {
  const NEWER = [
    'uuid: 66666666-6666-6666-6666-666666666666',
    'title: Judy',
    'date: 2026-05-01',
    'superseded_at: 2026-04-01T10:00:00Z',
    'archived_at: 2026-04-02T10:00:00Z',
    'valid_from: 2026-03-01',
    'valid_until: "2026-12-31"',
    'certainty: {level: high, by: [ops]}   # newer',
    'observed:',
    '  - 2026-02-01',
    '  - 2026-03-01',
  ];
  const fm = (lines: string[]) => `---\n${lines.join('\n')}\n---\n`;
  const NOTE = `${fm(NEWER)}\n# Judy\n\nJudy lives in London.\n`;

  it('merge keeps the frontmatter byte for byte', async () => {
    const root = tempCorpus();
    write(root, 'judy.md', NOTE);
    expect((await cli(root, ['merge', 'judy.md', 'Judy paints.'])).code).toBe(0);
    expect(text(root, 'judy.md').startsWith(NOTE)).toBe(true);
  });

  it('supersede and archive change only their own keys', async () => {
    const root = tempCorpus();
    write(root, 'judy.md', NOTE);
    const next = (await cli(root, ['--json', 'write', 'judy-paris', 'Judy lives in Paris', 'Paris.'])).json.note;
    const r = await cli(root, ['--json', 'supersede', 'judy.md', '--by', next.path]);
    expect(r.code, r.stderr).toBe(0);
    const superseded = text(root, 'judy.md');
    const at = frontmatterOf(root, 'judy.md').superseded_at as string;
    expect(at).toMatch(new RegExp(`^${MOMENT}$`));
    const marked = NEWER.map((l) => (l.startsWith('superseded_at:') ? `superseded_at: ${at}` : l));
    expect(superseded).toBe(NOTE.replace(fm(NEWER), fm([...marked, `superseded_by: ${next.uuid}`])));
    expect((await cli(root, ['archive', 'judy.md'])).code).toBe(0);
    const archived = text(root, '.archive/judy.md');
    const archivedAt = parseNoteText(archived).frontmatter.archived_at as string;
    expect(archivedAt).toMatch(new RegExp(`^${MOMENT}$`));
    expect(archived).toBe(superseded.replace('archived_at: 2026-04-02T10:00:00Z', `archived_at: ${archivedAt}`));
  });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function mcp(root: string, env: Record<string, string> = {}) {
  return mcpClient(clients, root, env);
}

describe('validity over MCP', () => {
  it('write takes valid_from and valid_until, supersede valid_from; a bad date is refused naming the argument', async () => {
    const root = tempCorpus();
    const call = await mcp(root);
    const w = await call('write', {
      slug: 'judy-london',
      title: 'Judy lives in London',
      body: 'London.',
      date: '2026-01-10',
      valid_from: '2026-01-01',
      valid_until: '2026-10-01',
    });
    expect(w.isError, w.content[0].text).toBe(false);
    expect(frontmatterOf(root, w.structuredContent.note.path)).toMatchObject({ valid_from: '2026-01-01', valid_until: '2026-10-01' });
    const bad = await call('write', { slug: 'judy-x', title: 'Judy X', valid_from: 'since October' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toBe('error: invalid "valid_from": "since October" (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)');
    const backwards = await call('write', { slug: 'judy-x', title: 'Judy X', valid_from: '2026-03-01', valid_until: '2026-02-01' });
    expect(backwards.content[0].text).toBe(
      'error: "valid_until" 2026-02-01 is before "valid_from" 2026-03-01: a note cannot stop holding true before it starts',
    );
    const next = await call('write', { slug: 'judy-paris', title: 'Judy lives in Paris', body: 'Paris.' });
    const refused = await call('supersede', { old: 'judy-london', by: 'judy-paris', valid_from: 'October' });
    expect([refused.isError, refused.content[0].text]).toEqual([
      true,
      'error: invalid "valid_from": "October" (expected YYYY-MM-DD or a date-time such as 2026-10-01T09:30:00Z)',
    ]);
    expect(frontmatterOf(root, w.structuredContent.note.path).superseded_by).toBeUndefined();
    const started = Date.now();
    const s = await call('supersede', { old: 'judy-london', by: 'judy-paris', valid_from: '2026-10-01' });
    expect(s.isError, s.content[0].text).toBe(false);
    expect(frontmatterOf(root, next.structuredContent.note.path)).toMatchObject({ valid_from: '2026-10-01' });
    expectMomentSince(frontmatterOf(root, w.structuredContent.note.path).superseded_at as string, started);
    const tools = (await clients[0].listTools()).tools;
    expect(Object.keys(tools.find((t) => t.name === 'write')!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['valid_from', 'valid_until']));
    expect(Object.keys(tools.find((t) => t.name === 'supersede')!.inputSchema.properties ?? {})).toEqual(['old', 'by', 'valid_from']);
  });

  it('tend_check counts impossible validity and fails; archive records archived_at', async () => {
    const root = tempCorpus();
    impossibleCorpus(root);
    const call = await mcp(root);
    const check = await call('tend_check');
    expect(check.structuredContent.counts).toMatchObject({ impossible: 2 });
    expect(check.structuredContent.findings.filter((f: { verdict: string }) => f.verdict === 'impossible')).toEqual(IMPOSSIBLE);
    expect(check.content[0].text).toContain('new.md:7: impossible: [valid_from](2026-04-01)');
    const started = Date.now();
    expect((await call('archive', { ref: 'b.md' })).isError).toBe(false);
    expectMomentSince(frontmatterOf(root, '.archive/b.md').archived_at as string, started);
  });
});

describe('the judge gives valid_from when the memory says since when', () => {
  function corpusWithJudy() {
    const root = tempCorpus();
    const judy = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy is a painter who lives in London.', date: '2026-01-10' });
    return { root, judy };
  }
  const moved = toCandidate({ content: 'Since October Judy lives in Paris.', topic: 'Judy', title: 'Judy in Paris' });

  it('writes it on the new note; the prompt names today and the schema offers it only with supersede', async () => {
    const { root, judy } = corpusWithJudy();
    const llm = stubLlm({ record_merge_decision: (m) => ({ action: 'supersede', target: shownIds(m)[0], reason: 'moved', valid_from: '2026-10-01' }) });
    const r = await integrate(root, moved, { llm, backend: 'rg' });
    expect(r.action).toBe('superseded');
    expect(frontmatterOf(root, r.note.path)).toMatchObject({ supersedes: [judy.uuid], valid_from: '2026-10-01' });
    expect(frontmatterOf(root, judy.path).superseded_at).toMatch(new RegExp(`^${MOMENT}$`));
    expect(llm.calls[0].messages[0].content).toMatch(/give that day as valid_from \(YYYY-MM-DD, the latest such day up to today, \d{4}-\d{2}-\d{2}\)/);
  });

  it('a merge ignores it, and an answer that is no date is said and dropped: the note is written without it', async () => {
    const { root, judy } = corpusWithJudy();
    const llm = stubLlm({ record_merge_decision: (m) => ({ action: 'supersede', target: shownIds(m)[0], reason: 'moved', valid_from: 'October' }) });
    const r = await integrate(root, moved, { llm, backend: 'rg' });
    expect(r.action).toBe('superseded');
    expect(frontmatterOf(root, r.note.path).valid_from).toBeUndefined();
    expect(frontmatterOf(root, judy.path).superseded_by).toBe(r.note.uuid);
    const merging = stubLlm({ record_merge_decision: (m) => ({ action: 'merge', target: shownIds(m)[0], reason: 'same', valid_from: '2026-10-01' }) });
    const before = mdFiles(root);
    const m = await integrate(root, toCandidate({ content: 'Judy paints in oils.', topic: 'Judy' }), { llm: merging, backend: 'rg' });
    expect(m.action).toBe('merged');
    expect(mdFiles(root)).toEqual(before);
    expect(frontmatterOf(root, m.note.path).valid_from).toBeUndefined();
  });
});

describe('the judge over the command line and MCP', () => {
  let llm: Awaited<ReturnType<typeof startFakeLlm>>;
  let answer = 'October';
  beforeAll(async () => {
    llm = await startFakeLlm({ record_merge_decision: (m) => ({ action: 'supersede', target: shownIds(m)[0], reason: 'moved', valid_from: answer }) });
  });
  afterAll(() => llm.close());

  it('integrate warns of a valid_from that is no date and writes the note without it (CLI)', async () => {
    const root = tempCorpus();
    const judy = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy is a painter who lives in London.' });
    answer = 'October';
    const r = await cli(root, ['--json', 'integrate', 'Since October Judy lives in Paris.', '--topic', 'Judy', '--title', 'Judy in Paris'], llm.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ action: 'superseded', target: { path: judy.path } });
    expect(r.stderr).toContain('warning: the judge gave valid_from "October", which is not a date: the new note was written without it');
    expect(frontmatterOf(root, r.json.note.path).valid_from).toBeUndefined();
  });

  it("integrate writes the judge's valid_from on the new note (MCP)", async () => {
    const root = tempCorpus();
    writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy is a painter who lives in London.' });
    answer = '2026-10-01';
    const call = await mcp(root, llm.env);
    const r = await call('integrate', { content: 'Since October Judy lives in Paris.', topic: 'Judy', title: 'Judy in Paris' });
    expect(r.isError, r.content[0].text).toBe(false);
    expect(r.structuredContent.action).toBe('superseded');
    expect(frontmatterOf(root, r.structuredContent.note.path)).toMatchObject({ valid_from: '2026-10-01' });
  });
});

describe('tend check reports every date it cannot read (CLI)', () => {
  it('names the note, the key, its line and the value, says how it is read, and fails the check', async () => {
    const root = tempCorpus();
    write(root, '20260215-leap.md', '---\nuuid: 77777777-7777-7777-7777-777777777777\ntitle: Leap\ndate: 2026-02-30\n---\n\n# Leap\n');
    write(
      root,
      'old.md',
      '---\nuuid: 88888888-8888-8888-8888-888888888888\ntitle: Old\ndate: 2026-01-01\nsuperseded_by: 99999999-9999-9999-9999-999999999999\nsuperseded_at: yesterday\nvalid_until: [2026, 3]\n---\n\n# Old\n',
    );
    write(
      root,
      'new.md',
      '---\nuuid: 99999999-9999-9999-9999-999999999999\ntitle: New\ndate: 2026-04-01 10:00:00 +05:00\nsupersedes:\n  - 88888888-8888-8888-8888-888888888888\n---\n\n# New\n',
    );
    write(root, 'always.md', '---\nuuid: 55555555-5555-5555-5555-555555555555\ntitle: Always\ndate: 2026-01-01\nvalid_from: 0000-01-01\n---\n\n# Always\n');
    write(root, 'undated.md', '---\nuuid: 66666666-6666-6666-6666-666666666666\ntitle: Undated\ndate: 2026-13-01\nvalid_from: soon\n---\n\n# Undated\n');
    const check = await cli(root, ['--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.counts).toMatchObject({ broken: 0, stale: 0, bad_date: 5 });
    const bad = check.json.findings.filter((f: { verdict: string }) => f.verdict === 'bad_date');
    expect(bad.map((f: any) => [f.file, f.line, f.label, f.target, f.uuid])).toEqual([
      ['20260215-leap.md', 4, 'date', '2026-02-30', '77777777-7777-7777-7777-777777777777'],
      ['old.md', 6, 'superseded_at', 'yesterday', '88888888-8888-8888-8888-888888888888'],
      ['old.md', 7, 'valid_until', '[2026,3]', '88888888-8888-8888-8888-888888888888'],
      ['undated.md', 4, 'date', '2026-13-01', '66666666-6666-6666-6666-666666666666'],
      ['undated.md', 5, 'valid_from', 'soon', '66666666-6666-6666-6666-666666666666'],
    ]);
    expect(bad[0].reason).toBe(
      'date "2026-02-30" is no date (YYYY-MM-DD, or a date-time such as 2026-10-01T09:30:00Z or 2026-10-01 09:30:00 +05:00); read as the file name\'s date, 2026-02-15',
    );
    expect(bad[3].reason).toMatch(/read as undated, as if the note had always been held$/);
    const shown = await cli(root, ['tend', 'check']);
    expect(shown.stdout).toContain('old.md:6: bad_date: [superseded_at](yesterday) (superseded_at "yesterday" is no date');
    expect(shown.stdout).toContain('a date that is no date is read as if absent: correct it in the notes named (repair does not change it)');
    // Corrected by hand, the check passes.
    fs.writeFileSync(path.join(root, '20260215-leap.md'), text(root, '20260215-leap.md').replace('2026-02-30', '2026-02-28'));
    fs.writeFileSync(
      path.join(root, 'old.md'),
      text(root, 'old.md').replace('yesterday', '2026-03-31').replace('valid_until: [2026, 3]', 'valid_until: 2026-03-01'),
    );
    fs.writeFileSync(path.join(root, 'undated.md'), text(root, 'undated.md').replace('2026-13-01', '2026-12-01').replace('soon', '2026-12-24'));
    const mended = await cli(root, ['--json', 'tend', 'check']);
    expect(mended.json.counts.bad_date ?? 0).toBe(0);
    expect(mended.code, JSON.stringify(mended.json.findings)).toBe(0);
  });
});
