import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshot, tempCorpus, write, zk } from './helpers/corpus.js';
import { mcpClient } from './helpers/mcp.js';
import { noteText, UUID } from './tend-fixtures.js';

// What two hosts' histories leave once git has merged them: a note superseded on each host by a
// different note (a fork), and one undated slug written on each host on another day. The files
// are written as the merge leaves them.

type F = { file: string; line: number; label: string; target: string; verdict: string; reason?: string; notes?: string[]; fix?: unknown };

const OLD = '20261130-judy-home.md';
const A = '20261201-judy-paris.md';
const B = '20261202-judy-berlin.md';

function note(root: string, name: string, uuid: string, title: string, body: string, extra: string[] = []): void {
  write(root, name, noteText(uuid, title, [body], [`date: ${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}`, ...extra]));
}

/** X superseded by A on one host and by B on the other: X names A, and both A and B list X. */
function forked(root: string): void {
  note(root, OLD, UUID.old, 'Judy lives in London', 'Judy lives in London, near the river.', [`superseded_by: ${UUID.a}`]);
  note(root, A, UUID.a, 'Judy moved to Paris', 'Judy moved to Paris in October.', ['supersedes:', `  - ${UUID.old}`]);
  note(root, B, UUID.b, 'Judy moved to Berlin', 'Judy moved to Berlin in October.', ['supersedes:', `  - ${UUID.old}`]);
}

async function check(root: string, ...more: string[]) {
  const r = await zk(['--root', root, '--json', 'tend', 'check', ...more]);
  return { ...r, findings: r.json.findings as F[] };
}

const of = (findings: F[], ...verdicts: string[]) => findings.filter((f) => verdicts.includes(f.verdict));

/** `tend check` passes: no fork left, and nothing broken, stale or impossible. */
async function settled(root: string): Promise<void> {
  const r = await check(root);
  expect(of(r.findings, 'fork', 'broken', 'stale', 'impossible')).toEqual([]);
  expect(r.code).toBe(0);
}

describe('a note superseded by two notes is a fork', () => {
  it('check reports one fork naming the note and both successors, fails, and says how to settle it', async () => {
    const root = tempCorpus();
    forked(root);
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(of(r.findings, 'fork', 'broken', 'stale')).toEqual([
      {
        file: OLD,
        line: 5,
        label: 'superseded_by',
        target: A,
        uuid: UUID.old,
        verdict: 'fork',
        reason: `${OLD} was superseded by two notes: ${A} and ${B}`,
        notes: [A, B],
      },
    ]);
    expect(r.json.counts).toMatchObject({ fork: 1, broken: 0, stale: 0 });
    const text = await zk(['--root', root, 'tend', 'check']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`${OLD}:5: fork: [superseded_by](${A}) (${OLD} was superseded by two notes: ${A} and ${B})`);
    expect(text.stdout).toContain(`\`zk-memory supersede ${A} --by ${B}\``);
    expect(text.stdout).toContain(`\`zk-memory archive ${A}\``);
  });

  it('names three successors in one finding, and a note that lacks superseded_by is a fork too', async () => {
    const root = tempCorpus();
    forked(root);
    const C = '20261203-judy-rome.md';
    note(root, C, UUID.c, 'Judy moved to Rome', 'Judy moved to Rome.', ['supersedes:', `  - ${UUID.old}`]);
    expect(of((await check(root)).findings, 'fork', 'broken', 'stale').map((f) => [f.verdict, f.reason, f.notes])).toEqual([
      ['fork', `${OLD} was superseded by three notes: ${A}, ${B} and ${C}`, [A, B, C]],
    ]);
    // As a crash or a hand edit may leave it: neither successor is named by the old note.
    note(root, OLD, UUID.old, 'Judy lives in London', 'Judy lives in London.');
    fs.rmSync(path.join(root, C));
    const r = await check(root);
    expect(of(r.findings, 'fork', 'broken', 'stale').map((f) => [f.verdict, f.file, f.notes])).toEqual([['fork', OLD, [A, B]]]);
    // repair does not pick one of them for the person
    const before = snapshot(root, { skip: /^\.zk/ });
    expect((await zk(['--root', root, 'tend', 'repair', '--write'])).code).toBe(0);
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
  });

  it('repair leaves a fork alone and reports nothing to fix', async () => {
    const root = tempCorpus();
    forked(root);
    const before = snapshot(root, { skip: /^\.zk/ });
    const repair = await zk(['--root', root, '--json', 'tend', 'repair', '--write']);
    expect(repair.code).toBe(0);
    expect(repair.json).toMatchObject({ changed: 0, files: [] });
    expect(repair.json.findings).toEqual([]);
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
    expect(of((await check(root)).findings, 'fork')).toHaveLength(1);
  });

  it.each(['rg', 'fts'])('search shows both successors as current and not the old note (%s)', async (backend) => {
    const root = tempCorpus();
    forked(root);
    const r = await zk(['--root', root, '--json', 'search', 'Judy moved', '--backend', backend]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.hits.map((h: { path: string }) => h.path).sort()).toEqual([A, B]);
    const london = await zk(['--root', root, '--json', 'search', 'London river', '--backend', backend]);
    expect(london.json.hits.map((h: { path: string }) => h.path)).not.toContain(OLD);
    const list = await zk(['--root', root, '--json', 'list']);
    expect(list.json.notes.map((n: { path: string }) => n.path)).toEqual([A, B]);
  });

  it('superseding one successor by the other settles it: no fork, nothing broken', async () => {
    const root = tempCorpus();
    forked(root);
    expect((await zk(['--root', root, 'supersede', A, '--by', B])).code).toBe(0);
    await settled(root);
  });

  it('superseding the successor the old note names, by a third note, settles it too', async () => {
    const root = tempCorpus();
    forked(root);
    const C = '20261203-judy-rome.md';
    note(root, C, UUID.c, 'Judy moved to Rome', 'Judy moved to Rome.');
    expect((await zk(['--root', root, 'supersede', A, '--by', C])).code).toBe(0);
    await settled(root);
  });

  it('archiving one successor settles it: no fork, nothing broken', async () => {
    const root = tempCorpus();
    forked(root);
    const archive = await zk(['--root', root, 'archive', B]);
    expect(archive.code, archive.stderr).toBe(0);
    await settled(root);
    expect((await zk(['--root', root, '--json', 'read', 'judy-home'])).json.note.superseded_by).toBe(UUID.a);
  });
});

describe('one undated slug written on two hosts', () => {
  it('refs, wikilinks and links read name the newest current note; check reports same_slug once and passes', async () => {
    const root = tempCorpus();
    note(root, '20261201-judy.md', UUID.a, 'Judy', 'Judy paints.');
    note(root, '20261203-judy.md', UUID.b, 'Judy', 'Judy sails.');
    write(root, 'links.md', noteText(UUID.c, 'Links', ['See [[judy]] and [[Judy]].']));
    const read = await zk(['--root', root, '--json', 'read', 'judy']);
    expect(read.code, read.stderr).toBe(0);
    expect(read.json.note.path).toBe('20261203-judy.md');
    expect((await zk(['--root', root, '--json', 'read', 'Judy'])).json.note.path).toBe('20261203-judy.md');
    const links = await zk(['--root', root, '--json', 'read', 'links']);
    expect(links.json.links.map((l: { target: string; path: string }) => [l.target, l.path])).toEqual([
      ['judy', '20261203-judy.md'],
      ['Judy', '20261203-judy.md'],
    ]);
    const backlinks = async (name: string) => (await zk(['--root', root, '--json', 'read', name])).json.backlinks.map((b: { path: string }) => b.path);
    expect(await backlinks('20261203-judy.md')).toEqual(['links.md']);
    expect(await backlinks('20261201-judy.md')).toEqual([]);

    const r = await check(root);
    expect(r.code).toBe(0);
    expect(of(r.findings, 'same_slug', 'broken', 'stale', 'fork')).toEqual([
      {
        file: '20261203-judy.md',
        line: 1,
        label: 'slug',
        target: 'judy',
        uuid: UUID.b,
        verdict: 'same_slug',
        reason: 'judy is the undated slug of 20261201-judy.md and 20261203-judy.md; refs name the newest',
        notes: ['20261201-judy.md', '20261203-judy.md'],
      },
    ]);
    // the wikilinks are sound: they name one note, and only lack an anchor
    expect(r.findings.filter((f) => f.file === 'links.md').map((f) => f.verdict)).toEqual(['unanchored', 'unanchored']);
    const text = await zk(['--root', root, 'tend', 'check']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      '20261203-judy.md:1: same_slug: [slug](judy) (judy is the undated slug of 20261201-judy.md and 20261203-judy.md; refs name the newest)',
    );
    expect((await zk(['--root', root, 'tend', 'check', '--strict'])).code).toBe(1);
  });

  it('the newest current note, when the newest bearing the slug is superseded', async () => {
    const root = tempCorpus();
    note(root, '20261201-judy.md', UUID.a, 'Judy', 'Judy paints.');
    note(root, '20261202-judy.md', UUID.b, 'Judy', 'Judy sails.', ['supersedes:', `  - ${UUID.c}`]);
    note(root, '20261203-judy.md', UUID.c, 'Judy', 'Judy swims.', [`superseded_by: ${UUID.b}`]);
    expect((await zk(['--root', root, '--json', 'read', 'judy'])).json.note.path).toBe('20261202-judy.md');
    expect(of((await check(root)).findings, 'same_slug').map((f) => [f.file, f.reason, f.notes])).toEqual([
      [
        '20261202-judy.md',
        'judy is the undated slug of 20261201-judy.md, 20261202-judy.md and 20261203-judy.md; refs name the newest current one, 20261202-judy.md',
        ['20261201-judy.md', '20261202-judy.md', '20261203-judy.md'],
      ],
    ]);
  });

  it('numbered names are other slugs: no finding, and each name reads its own note', async () => {
    const root = tempCorpus();
    note(root, '20261202-judy.md', UUID.a, 'Judy', 'Judy paints.');
    note(root, '20261202-judy-2.md', UUID.b, 'Judy', 'Judy sails.');
    const r = await check(root);
    expect(r.code).toBe(0);
    expect(of(r.findings, 'same_slug')).toEqual([]);
    expect((await zk(['--root', root, '--json', 'read', 'judy'])).json.note.path).toBe('20261202-judy.md');
    expect((await zk(['--root', root, '--json', 'read', 'judy-2'])).json.note.path).toBe('20261202-judy-2.md');
  });

  it('a chain under one slug (one current note) gives no finding', async () => {
    const root = tempCorpus();
    note(root, '20261201-judy.md', UUID.a, 'Judy', 'Judy paints.', [`superseded_by: ${UUID.b}`]);
    note(root, '20261203-judy.md', UUID.b, 'Judy', 'Judy sails.', ['supersedes:', `  - ${UUID.a}`]);
    const r = await check(root);
    expect(r.code).toBe(0);
    expect(of(r.findings, 'same_slug', 'fork', 'broken', 'stale')).toEqual([]);
    expect((await zk(['--root', root, '--json', 'read', 'judy'])).json.note.path).toBe('20261203-judy.md');
  });

  it('a slug no note bearing it is current for stays ambiguous', async () => {
    const root = tempCorpus();
    note(root, '20261201-judy.md', UUID.a, 'Judy', 'Judy paints.', [`superseded_by: ${UUID.c}`]);
    note(root, '20261203-judy.md', UUID.b, 'Judy', 'Judy sails.', [`superseded_by: ${UUID.c}`]);
    note(root, '20261204-someone.md', UUID.c, 'Someone', 'Someone else.', ['supersedes:', `  - ${UUID.a}`, `  - ${UUID.b}`]);
    const r = await zk(['--root', root, 'read', 'judy']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: ambiguous ref: judy matches 20261201-judy.md, 20261203-judy.md (name one by its file name)');
  });
});

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

describe('over MCP', () => {
  it('tend_check reports the fork, with the hint in tool terms', async () => {
    const root = tempCorpus();
    forked(root);
    const call = await mcpClient(clients, root);
    const r = await call('tend_check');
    const json = r.structuredContent;
    expect(json.findings.filter((f: F) => f.verdict === 'fork')).toEqual([expect.objectContaining({ file: OLD, notes: [A, B] })]);
    expect(json.counts.fork).toBe(1);
    const text = r.content.map((c: { text: string }) => c.text).join('\n');
    expect(text).toContain(`\`supersede {"old":"${A}","by":"${B}"}\``);
    expect(text).not.toContain('zk-memory');
  });
});
