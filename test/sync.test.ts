import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mdFiles } from './helpers/corpus.js';
import { gitHosts, tree } from './helpers/git-hosts.js';
import { judyOnBoth, run, sync, syncAll } from './helpers/sync-steps.js';

// `zk-memory sync` between hosts, each a clone of one bare remote (docs/hosts.md): the merge
// rules on real git merges. A true conflict, an unreachable remote and a push race are in
// test/sync-failures.test.ts.

function noConflictMarkers(clone: string): void {
  for (const [p, text] of Object.entries(tree(clone))) expect(/^(<<<<<<<|>>>>>>>) /m.test(text), p).toBe(false);
}

async function tendClean(clone: string): Promise<any> {
  const r = await run(clone, 'tend', 'check', '--json');
  expect(r.code, r.stdout).toBe(0);
  return r.json;
}

const uuidOf = (clone: string, name: string) => /^uuid: (.+)$/m.exec(fs.readFileSync(path.join(clone, name), 'utf8'))![1];

describe('sync', () => {
  it('fragments merged into one note on two hosts: the note holds every fragment once, in date order, on every host', async () => {
    const {
      clones: [a, b],
    } = await judyOnBoth();
    await run(a, 'merge', 'judy', 'Moved to Paris.', '--source', 'laptop');
    await run(b, 'merge', 'judy', 'Has a cat called Miso.', '--source', 'phone');
    await run(a, 'merge', 'judy', 'Bought a bike.', '--source', 'laptop');
    const first = await sync(a);
    expect(first.json).toMatchObject({ ok: true, committed: { files: ['.zk/trace.jsonl', mdFiles(a)[0]] }, outgoing: { pushed: true } });
    const second = await sync(b);
    expect(second.json).toMatchObject({ ok: true, incoming: { commits: 1 }, outgoing: { pushed: true, commits: 2 } });
    await sync(a);
    expect(tree(a)).toEqual(tree(b));
    const [note] = mdFiles(a);
    const text = fs.readFileSync(path.join(a, note), 'utf8');
    for (const f of ['Moved to Paris.', 'Has a cat called Miso.', 'Bought a bike.']) expect(text.split(f).length, f).toBe(2);
    const dates = [...text.matchAll(/^\*(\S+) \(/gm)].map((m) => m[1]);
    expect(dates).toEqual([...dates].sort());
    // the trace holds the lines of both hosts, once each
    const trace = fs.readFileSync(path.join(a, '.zk/trace.jsonl'), 'utf8').trim().split('\n');
    expect(trace.filter((l) => l.includes('"event":"merge"'))).toHaveLength(3);
    expect(new Set(trace).size).toBe(trace.length);
    noConflictMarkers(a);
    await tendClean(a);
    // what came in is found on the receiving host
    expect((await run(b, 'search', 'bike', '--json')).json.hits.map((h: any) => h.path)).toEqual([note]);
  });

  it('the same slug written on one day on two hosts: both notes kept, one under a numbered name, links by uuid follow it', async () => {
    const {
      clones: [a, b],
    } = await gitHosts(2);
    await run(a, 'write', 'plan', 'Plan A', 'Ship on Monday.', '--date', '2026-12-02');
    await run(b, 'write', 'plan', 'Plan B', 'Ship on Friday.', '--date', '2026-12-02');
    // b links to its own note, anchored by uuid, as the tool writes links
    const bUuid = uuidOf(b, '20261202-plan.md');
    await run(b, 'write', 'notes', 'Notes', `See [Plan B](20261202-plan.md) <!-- uuid: ${bUuid} -->.`, '--date', '2026-12-02');
    const aUuid = uuidOf(a, '20261202-plan.md');
    await syncAll([a, b]);
    expect(tree(a)).toEqual(tree(b));
    expect(mdFiles(a)).toEqual(['20261202-notes.md', '20261202-plan-2.md', '20261202-plan.md']);
    const keeper = aUuid < bUuid ? aUuid : bUuid;
    const moved = aUuid < bUuid ? bUuid : aUuid;
    expect(uuidOf(a, '20261202-plan.md')).toBe(keeper);
    expect(uuidOf(a, '20261202-plan-2.md')).toBe(moved);
    const link = fs.readFileSync(path.join(a, '20261202-notes.md'), 'utf8');
    expect(link).toContain(`(${bUuid === moved ? '20261202-plan-2.md' : '20261202-plan.md'}) <!-- uuid: ${bUuid} -->`);
    expect((await run(a, 'read', bUuid, '--json')).json.note.title).toBe('Plan B');
    expect((await run(a, 'read', aUuid, '--json')).json.note.title).toBe('Plan A');
    const check = await tendClean(a);
    expect(check.counts).toMatchObject({ stale: 0, broken: 0 });
    noConflictMarkers(a);
  });

  it('the same undated slug on two days on two hosts: both kept, the slug names the newer', async () => {
    const {
      clones: [a, b],
    } = await gitHosts(2);
    await run(a, 'write', 'judy', 'Judy', 'Judy paints.', '--date', '2026-12-01');
    await run(b, 'write', 'judy', 'Judy', 'Judy sings.', '--date', '2026-12-03');
    await syncAll([a, b]);
    expect(mdFiles(a)).toEqual(['20261201-judy.md', '20261203-judy.md']);
    expect((await run(a, 'read', 'judy', '--json')).json.note.path).toBe('20261203-judy.md');
    const check = await run(a, 'tend', 'check', '--json');
    expect(check.json.findings.filter((f: any) => f.verdict === 'same_slug')).toHaveLength(1);
  });

  it('archived on one host, merged into on the other: the note stays archived and holds the fragment', async () => {
    const {
      clones: [a, b],
    } = await judyOnBoth();
    await run(a, 'archive', 'judy', '--reason', 'written by mistake');
    await run(b, 'merge', 'judy', 'She moved in October.', '--source', 'phone');
    await syncAll([a, b]);
    expect(tree(a)).toEqual(tree(b));
    expect(mdFiles(a)).toEqual([]);
    const [copy] = fs.readdirSync(path.join(a, '.archive'));
    const text = fs.readFileSync(path.join(a, '.archive', copy), 'utf8');
    expect(text).toContain('She moved in October.');
    expect(text).toMatch(/^archived_at: /m);
    noConflictMarkers(a);
  });

  it('one note superseded on two hosts: both successors kept and current, tend check reports the fork', async () => {
    const {
      clones: [a, b],
    } = await judyOnBoth();
    await run(a, 'write', 'judy-paris', 'Judy paints in Paris', 'Judy paints the Seine now.', '--supersedes', 'judy');
    await run(b, 'write', 'judy-rome', 'Judy paints in Rome', 'Judy paints the Tiber now.', '--supersedes', 'judy');
    await syncAll([a, b]);
    expect(tree(a)).toEqual(tree(b));
    // the note both replaced matches too, and is not current
    const hits = (await run(a, 'search', 'Judy paints', '--json')).json.hits.map((h: any) => h.title).sort();
    expect(hits).toEqual(['Judy paints in Paris', 'Judy paints in Rome']);
    const check = await run(a, 'tend', 'check', '--json');
    expect(check.json.findings.filter((f: any) => f.verdict === 'fork')).toHaveLength(1);
    expect(check.json.findings.filter((f: any) => f.verdict === 'broken')).toEqual([]);
    noConflictMarkers(a);
  });
});
