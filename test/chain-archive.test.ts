import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, snapshot, tempCorpus, zk, zkProcess, type RunResult } from './helpers/corpus.js';
import { mcpClient } from './helpers/mcp.js';
import { expectMomentSince } from './helpers/moments.js';

// Archiving a note that is part of a supersession chain (A by B, B by C) takes it out of the chain
// without breaking it, on the command line and over MCP; a chain broken by hand, by a crash or by an
// older version of the tool is reported by tend check and mended by tend repair.

/** A lock left by a killed process is taken over within 2 s. */
const ENV = { ZK_MEMORY_LOCK_STALE: '2', ZK_MEMORY_BACKEND: 'rg' };

/** The command line, in this process (same parsing, output and exit code as the built CLI's). */
const cli = (root: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> => zk(['--root', root, ...args], { env: { ...ENV, ...env } });
/** The built CLI in a process of its own: for a run that the fault seam kills part-way. */
const cliProcess = (root: string, args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
  zkProcess(['--root', root, ...args], { env: { ...ENV, ...env } });
const json = async (root: string, args: string[]) => (await cli(root, ['--json', ...args])).json;

interface Made {
  uuid: string;
  path: string;
  slug: string;
  title: string;
}

/** A note written for a case to work on (in this process: the writing is not what is tested). */
const made = async (root: string, args: string[]): Promise<Made> => (await zk(['--root', root, '--json', 'write', ...args])).json.note;

/** A → B → C: A superseded by B, B by C. */
async function chain(root: string): Promise<{ a: Made; b: Made; c: Made }> {
  const a = await made(root, ['judy-london', 'Judy lives in London', 'Judy lives in London.']);
  const b = await made(root, ['judy-paris', 'Judy lives in Paris', 'Judy moved to Paris.', '--supersedes', a.path]);
  const c = await made(root, ['judy-berlin', 'Judy lives in Berlin', 'Judy moved to Berlin.', '--supersedes', b.path]);
  return { a, b, c };
}

const text = (root: string, name: string) => fs.readFileSync(path.join(root, name), 'utf8');
/** A frontmatter key's value as written in a note's file, or undefined. */
const keyIn = (root: string, name: string, key: string) => new RegExp(`^${key}: (.*)$`, 'm').exec(text(root, name))?.[1];
/** Set a note's superseded_at to a long-past moment by hand, so a rewrite of it shows. */
const supersededLongAgo = (root: string, n: Made) =>
  fs.writeFileSync(path.join(root, n.path), text(root, n.path).replace(/^superseded_at: .*$/m, 'superseded_at: 2020-01-01T00:00:00Z'));
const archivedOf = (n: Made) => `.archive/${n.path}`;
const shown = (n: Made, archived = false) => expect.objectContaining({ path: archived ? archivedOf(n) : n.path, archived });

/** What read says of a note: its frontmatter fields, the chain after it and the notes it replaces. */
async function readOf(root: string, n: Made) {
  const r = await json(root, ['read', n.path]);
  return { superseded_by: r.note.superseded_by, supersedes: r.note.supersedes, chain: r.chain, replaces: r.replaces };
}

/** Move a note into the archive by hand, as a person (or an older version of the tool) would. */
function archiveByHand(root: string, n: Made): void {
  fs.mkdirSync(path.join(root, '.archive'), { recursive: true });
  fs.renameSync(path.join(root, n.path), path.join(root, archivedOf(n)));
}

describe('archive re-links the chain (CLI)', () => {
  it('archiving the middle note: its predecessor is superseded by its successor, which lists both', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    supersededLongAgo(root, a);
    const started = Date.now();
    const r = await cli(root, ['archive', b.path, '--reason', 'written by mistake']);
    expect(r.code, r.stderr).toBe(0);
    // A re-linked is superseded now; the archived copy records when it was archived.
    expectMomentSince(keyIn(root, a.path, 'superseded_at'), started);
    expectMomentSince(keyIn(root, archivedOf(b), 'archived_at'), started);
    expect(r.stdout).toBe(
      [`archived ${b.path} to ${archivedOf(b)} (written by mistake); move it back to undo`, `${a.path} is now superseded by ${c.path} (${c.title})`].join('\n'),
    );
    expect(await readOf(root, a)).toMatchObject({ superseded_by: c.uuid, chain: [shown(c)] });
    // The archived note stays listed as what C replaced, marked archived; A is listed after it.
    expect(await readOf(root, c)).toMatchObject({ supersedes: [b.uuid, a.uuid], replaces: [shown(b, true), shown(a)] });
    const readC = await cli(root, ['read', c.path]);
    expect(readC.stdout.split('\n')[0]).toBe(`note: supersedes ${archivedOf(b)} (${b.title}) (archived), ${a.path} (${a.title})`);
    const readA = await cli(root, ['read', a.path]);
    expect(readA.stdout.split('\n')[0]).toBe(`note: superseded by ${c.path} (${c.title})`);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
    // A is not the current belief: superseding it says which note is.
    const d = await made(root, ['judy-rome', 'Judy lives in Rome', 'Rome.']);
    const refused = await cli(root, ['supersede', a.path, '--by', d.path]);
    expect([refused.code, refused.stderr]).toEqual([
      1,
      `error: ${a.path} is already superseded by ${c.path} (${c.title}); supersede the current note instead: \`zk-memory supersede ${c.path} --by NEW\``,
    ]);
  });

  it('archiving the current belief makes the note it replaced current again, so the subject stays found', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    const r = await json(root, ['archive', c.path]);
    expect(r).toMatchObject({ ok: true, action: 'archived', archived: archivedOf(c), relinked: [{ note: { path: b.path, superseded_by: null }, to: null }] });
    expect(text(root, b.path)).not.toContain('superseded_by');
    expect(text(root, b.path)).not.toContain('superseded_at');
    expect(await readOf(root, a)).toMatchObject({ superseded_by: b.uuid, chain: [shown(b)] });
    const found = await json(root, ['search', 'Judy']);
    expect(found.hits.map((h: { path: string }) => h.path)).toEqual([b.path]);
    expect((await json(root, ['list'])).notes.map((n: { path: string }) => n.path)).toEqual([b.path]);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);

    // Undo: the note moved back, tend repair marks its predecessor superseded by it again.
    fs.renameSync(path.join(root, archivedOf(c)), path.join(root, c.path));
    expect((await cli(root, ['tend', 'check'])).code).toBe(1);
    const repaired = Date.now();
    expect((await cli(root, ['tend', 'repair', '--write'])).code).toBe(0);
    expect(await readOf(root, b)).toMatchObject({ superseded_by: c.uuid });
    expectMomentSince(keyIn(root, b.path, 'superseded_at'), repaired);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });

  it('with commits asked for, one commit holds the move and the re-linked notes, and says what was re-linked', async () => {
    const root = tempCorpus();
    const git = async (...args: string[]) => (await execa('git', args, { cwd: root })).stdout;
    await git('init', '-q', '-b', 'main');
    for (const [k, v] of [
      ['user.name', 'Test'],
      ['user.email', 'test@example.org'],
      ['commit.gpgsign', 'false'],
      ['core.hooksPath', '.git/hooks'],
    ])
      await git('config', k, v);
    const { a, b, c } = await chain(root);
    await git('add', '-A');
    await git('commit', '-q', '-m', 'baseline');
    expect((await cli(root, ['archive', b.path], { ZK_MEMORY_GIT_COMMIT: '1' })).code).toBe(0);
    expect((await git('log', '-1', '--format=%B')).trim().split('\n')).toEqual([
      `archive: ${b.title}`,
      '',
      `- moved "${b.title}" (${b.path}) to ${archivedOf(b)}`,
      `- "${a.title}" (${a.path}) is now superseded by "${c.title}" (${c.path})`,
    ]);
    expect((await git('show', '--name-only', '--format=', 'HEAD')).split('\n').filter(Boolean).sort()).toEqual(
      [archivedOf(b), '.zk/trace.jsonl', a.path, c.path].sort(),
    );
    expect(await git('status', '--porcelain', '--', '*.md')).toBe('');
  });

  it('says so in text when a note is the current belief again', async () => {
    const root = tempCorpus();
    const { b, c } = await chain(root);
    const r = await cli(root, ['archive', c.path]);
    expect(r.stdout.split('\n')).toEqual([
      `archived ${c.path} to ${archivedOf(c)}; move it back to undo`,
      `${b.path} (${b.title}) is the current belief again`,
    ]);
  });

  it('archiving the first note re-links nothing; its successor shows it as an archived predecessor', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    const before = [text(root, b.path), text(root, c.path)];
    expect(await json(root, ['archive', a.path])).toMatchObject({ ok: true, relinked: [] });
    expect([text(root, b.path), text(root, c.path)]).toEqual(before);
    expect(await readOf(root, b)).toMatchObject({ superseded_by: c.uuid, replaces: [shown(a, true)] });
    expect((await cli(root, ['read', b.path])).stdout.split('\n')[2]).toBe(`note: supersedes ${archivedOf(a)} (${a.title}) (archived)`);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });

  it.each([
    ['the predecessor', 'a' as const],
    ['the successor', 'c' as const],
  ])('refuses, changing nothing, when %s has frontmatter that is not valid YAML', async (_, which) => {
    const root = tempCorpus();
    const notes = await chain(root);
    const bad = notes[which];
    fs.writeFileSync(path.join(root, bad.path), text(root, bad.path).replace(/^title: .*$/m, 'title: [unclosed'));
    const before = snapshot(root, { skip: /^\.zk\// });
    const r = await cli(root, ['archive', notes.b.path]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: cannot archive ${notes.b.path}: ${bad.path} .*its frontmatter is not valid YAML; nothing was changed \\(fix the frontmatter of ${bad.path} by hand, then run \`zk-memory archive ${notes.b.path}\` again, or leave the note where it is\\)$`,
        'm',
      ),
    );
    expect(snapshot(root, { skip: /^\.zk\// })).toEqual(before);
  });
});

describe('a chain broken by hand or by an older version (CLI)', () => {
  it('the middle note moved to the archive: read names it archived, supersede gives the way out, repair re-links', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    archiveByHand(root, b);
    const readA = await cli(root, ['read', a.path]);
    expect(readA.stdout.split('\n')[0]).toBe(
      `note: superseded by ${archivedOf(b)} (${b.title}) (archived); current: ${c.path} (${c.title}) (\`zk-memory tend repair --write\` re-links this note to ${c.path})`,
    );
    expect((await readOf(root, a)).chain).toEqual([shown(b, true), shown(c)]);
    expect((await readOf(root, c)).replaces).toEqual([shown(b, true)]);
    const d = await made(root, ['judy-rome', 'Judy lives in Rome', 'Rome.']);
    const refused = await cli(root, ['supersede', a.path, '--by', d.path]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: ${a.path} is already superseded by ${archivedOf(b)} (archived), and the current note is ${c.path} (${c.title}): supersede the current note instead: \`zk-memory supersede ${c.path} --by NEW\`; \`zk-memory tend repair --write\` re-links ${a.path} past the archived note`,
    );

    const check = await cli(root, ['--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.findings).toContainEqual(
      expect.objectContaining({ file: a.path, label: 'superseded_by', verdict: 'stale', target: archivedOf(b), fix: { uuid: c.uuid } }),
    );
    const repair = await cli(root, ['--json', 'tend', 'repair', '--write']);
    expect(repair.code).toBe(0);
    expect(repair.json.files.sort()).toEqual([a.path, c.path].sort());
    expect(await readOf(root, a)).toMatchObject({ superseded_by: c.uuid });
    expect((await readOf(root, c)).replaces).toEqual([shown(b, true), shown(a)]);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });

  it('a repair by an older version left the newest note without its predecessor: check reports it, repair lists it', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    archiveByHand(root, b);
    fs.writeFileSync(path.join(root, a.path), text(root, a.path).replace(b.uuid, c.uuid));
    expect((await readOf(root, c)).replaces).toEqual([shown(b, true)]);
    const check = await cli(root, ['tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(
      `${c.path}:5: stale: [supersedes](${a.path}) -> uuid ${a.uuid} (${a.path} is superseded by this note, which does not list it under supersedes)`,
    );
    expect((await cli(root, ['tend', 'repair', '--write'])).code).toBe(0);
    expect(await readOf(root, c)).toMatchObject({ supersedes: [b.uuid, a.uuid], replaces: [shown(b, true), shown(a)] });
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });

  it('a successor archived with nothing after it, or in no note: the note is current again after repair, or may be superseded', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    archiveByHand(root, c);
    // A is superseded by B, which is current once repaired: read names B, and nothing of the archive.
    expect((await cli(root, ['read', a.path])).stdout.split('\n')[0]).toBe(`note: superseded by ${b.path} (${b.title})`);
    const x = await made(root, ['kim', 'Kim paints', 'Kim paints.']);
    const gone = '99999999-9999-4999-8999-999999999999';
    fs.writeFileSync(path.join(root, x.path), text(root, x.path).replace(/^---\n/, `---\nsuperseded_by: ${gone}\n`));
    expect((await cli(root, ['read', b.path])).stdout.split('\n')[0]).toBe(
      `note: superseded by ${archivedOf(c)} (${c.title}) (archived); nothing current replaces it (\`zk-memory tend repair --write\` makes this note current again)`,
    );
    expect((await cli(root, ['read', x.path])).stdout.split('\n')[0]).toBe(
      `note: superseded by ${gone} (not found); nothing current replaces it (\`zk-memory tend repair --write\` makes this note current again)`,
    );
    const check = await cli(root, ['--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.findings.filter((f: { verdict: string }) => f.verdict !== 'ok')).toEqual([
      expect.objectContaining({ file: b.path, label: 'superseded_by', target: archivedOf(c), verdict: 'stale', fix: { current: true } }),
      expect.objectContaining({ file: x.path, label: 'superseded_by', target: gone, verdict: 'stale', fix: { current: true } }),
    ]);
    // The note whose successor is in no note is the current belief: it may be superseded.
    const y = await made(root, ['kim-sculpts', 'Kim sculpts', 'Kim sculpts now.']);
    const s = await cli(root, ['--json', 'supersede', x.path, '--by', y.path]);
    expect(s.code, s.stderr).toBe(0);
    expect(s.json).toMatchObject({ action: 'superseded', old: { path: x.path, superseded_by: y.uuid } });
    expect((await cli(root, ['tend', 'repair', '--write'])).code).toBe(0);
    expect(text(root, b.path)).not.toContain('superseded_by');
    expect((await json(root, ['search', 'Judy'])).hits.map((h: { path: string }) => h.path)).toEqual([b.path]);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
  });
});

describe('an archive killed part-way (CLI, separate process)', () => {
  it.each([
    ['archive-after-move', 'b'],
    ['archive-after-relink', 'b'],
    ['archive-after-move', 'c'],
  ] as const)('killed at %s while archiving %s: tend check reports it, tend repair mends it', async (fault, which) => {
    const root = tempCorpus();
    const notes = await chain(root);
    const { a, b, c } = notes;
    const killed = await cliProcess(root, ['archive', notes[which].path], { ZK_MEMORY_FAULT: fault });
    expect(killed.code).not.toBe(0);
    expect(fs.existsSync(path.join(root, archivedOf(notes[which])))).toBe(true);
    const check = await cli(root, ['--json', 'tend', 'check']);
    expect(check.code).toBe(1);
    expect(check.json.counts.stale).toBe(1);
    expect(check.json.counts.broken).toBe(0);
    expect((await cli(root, ['tend', 'repair', '--write'])).code).toBe(0);
    expect((await cli(root, ['tend', 'check'])).code).toBe(0);
    if (which === 'b') {
      expect(await readOf(root, a)).toMatchObject({ superseded_by: c.uuid });
      expect((await readOf(root, c)).replaces).toEqual([shown(b, true), shown(a)]);
    } else {
      expect(await readOf(root, b)).toMatchObject({ superseded_by: null, replaces: [shown(a)] });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The same over MCP: a real client talking to `zk-memory mcp` over stdio.

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function mcp(root: string, env: Record<string, string> = {}) {
  return mcpClient(clients, root, { ...ENV, ...env });
}

describe('archive re-links the chain (MCP)', () => {
  it('offers tend_repair and tend_robustify, each a dry run unless write is true', async () => {
    const root = tempCorpus();
    await mcp(root);
    const { tools } = await clients[0].listTools();
    for (const name of ['tend_repair', 'tend_robustify']) {
      const t = tools.find((x) => x.name === name)!;
      expect(t, name).toBeDefined();
      expect(t.annotations?.readOnlyHint).toBe(false);
      expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(['write']);
      expect(t.description).toMatch(/dry run unless write is true/);
    }
  });

  it('archiving the middle note and then the current belief, with the re-links in the answer', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    supersededLongAgo(root, a);
    const call = await mcp(root);
    const started = Date.now();
    const r = await call('archive', { ref: b.path });
    expect(r.isError).toBe(false);
    expectMomentSince(keyIn(root, a.path, 'superseded_at'), started);
    expectMomentSince(keyIn(root, archivedOf(b), 'archived_at'), started);
    expect(r.structuredContent).toMatchObject({ ok: true, relinked: [{ note: { path: a.path, superseded_by: c.uuid }, to: { path: c.path } }] });
    expect(r.content[0].text.split('\n')[1]).toBe(`${a.path} is now superseded by ${c.path} (${c.title})`);
    const readC = await call('read', { ref: c.path });
    expect(readC.structuredContent.replaces).toEqual([shown(b, true), shown(a)]);
    expect(readC.content[0].text.split('\n')[0]).toBe(`note: supersedes ${archivedOf(b)} (${b.title}) (archived), ${a.path} (${a.title})`);
    const d = await call('write', { slug: 'judy-rome', title: 'Judy lives in Rome', body: 'Rome.' });
    const refused = await call('supersede', { old: a.path, by: d.structuredContent.note.path });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toBe(
      `error: ${a.path} is already superseded by ${c.path} (${c.title}); supersede the current note instead: \`supersede {"old":"${c.path}","by":"…"}\``,
    );

    const tail = await call('archive', { ref: c.path });
    expect(tail.structuredContent.relinked).toEqual([{ note: expect.objectContaining({ path: a.path, superseded_by: null }), to: null }]);
    expect(tail.content[0].text.split('\n')[1]).toBe(`${a.path} (${a.title}) is the current belief again`);
    expect(keyIn(root, a.path, 'superseded_at')).toBeUndefined();
    const found = await call('search', { query: 'London' });
    expect(found.structuredContent.hits.map((h: { path: string }) => h.path)).toEqual([a.path]);
    expect((await call('tend_check')).structuredContent.counts).toMatchObject({ stale: 0, broken: 0 });
  });

  it('refuses with the way out in MCP terms when a note to re-link cannot be edited', async () => {
    const root = tempCorpus();
    const { a, b } = await chain(root);
    fs.writeFileSync(path.join(root, a.path), text(root, a.path).replace(/^title: .*$/m, 'title: [unclosed'));
    const call = await mcp(root);
    const r = await call('archive', { ref: b.path });
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(
      new RegExp(
        `nothing was changed \\(the frontmatter of ${a.path} must be fixed by hand on the server, then call \`archive \\{"ref":"${b.path}"\\}\` again; or leave the note where it is\\)$`,
      ),
    );
    expect(fs.existsSync(path.join(root, b.path))).toBe(true);
  });

  it('a chain broken by hand: tend_check points at tend_repair, whose dry run writes nothing and says how to write', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    archiveByHand(root, b);
    const call = await mcp(root);
    const readA = await call('read', { ref: a.path });
    expect(readA.content[0].text.split('\n')[0]).toBe(
      `note: superseded by ${archivedOf(b)} (${b.title}) (archived); current: ${c.path} (${c.title}) (\`tend_repair {"write":true}\` re-links this note to ${c.path})`,
    );
    const check = await call('tend_check');
    expect(check.content[0].text).toContain('stale links can be fixed: `tend_repair {"write":true}`');
    const before = snapshot(root, { skip: /^\.zk\// });
    const dry = await call('tend_repair');
    expect(dry.isError).toBe(false);
    expect(dry.structuredContent).toMatchObject({ action: 'repair', write: false, changed: 0, files: [] });
    expect(dry.content[0].text).toMatch(/dry run, nothing written: call it again with "write": true$/);
    expect(snapshot(root, { skip: /^\.zk\// })).toEqual(before);
    const done = await call('tend_repair', { write: true });
    expect(done.structuredContent).toMatchObject({ action: 'repair', write: true });
    expect(done.structuredContent.files.sort()).toEqual([a.path, c.path].sort());
    expect((await call('read', { ref: c.path })).structuredContent.replaces).toEqual([shown(b, true), shown(a)]);
    expect((await call('read', { ref: a.path })).structuredContent.note.superseded_by).toBe(c.uuid);
    expect((await call('tend_check')).structuredContent.counts).toMatchObject({ stale: 0, broken: 0 });
  });

  it('an archive killed part-way over MCP is mended with tend_repair', async () => {
    const root = tempCorpus();
    const { a, b, c } = await chain(root);
    const dying = await mcp(root, { ZK_MEMORY_FAULT: 'archive-after-relink' });
    await expect(dying('archive', { ref: b.path })).rejects.toThrow();
    const call = await mcp(root);
    const check = await call('tend_check');
    expect(check.structuredContent.counts).toMatchObject({ stale: 1, broken: 0 });
    await call('tend_repair', { write: true });
    expect((await call('read', { ref: c.path })).structuredContent.replaces).toEqual([shown(b, true), shown(a)]);
    expect((await call('tend_check')).structuredContent.counts).toMatchObject({ stale: 0, broken: 0 });
  });

  it('tend_robustify anchors plain links, after a dry run that changes nothing', async () => {
    const root = tempCorpus();
    const call = await mcp(root);
    const judy = (await call('write', { slug: 'judy', title: 'Judy', body: 'A painter.' })).structuredContent.note;
    const kim = (await call('write', { slug: 'kim', title: 'Kim', body: `Knows [Judy](${judy.path}).` })).structuredContent.note;
    const dry = await call('tend_robustify');
    expect(dry.structuredContent.findings).toEqual([expect.objectContaining({ file: kim.path, verdict: 'unanchored', fix: { uuid: judy.uuid } })]);
    expect(dry.content[0].text).toMatch(/robustify: would change 1 link .*call it again with "write": true$/m);
    expect(text(root, kim.path)).not.toContain('<!-- uuid:');
    const done = await call('tend_robustify', { write: true });
    expect(done.structuredContent).toMatchObject({ write: true, changed: 1, files: [kim.path] });
    expect(text(root, kim.path)).toContain(`[Judy](${judy.path}) <!-- uuid: ${judy.uuid} -->`);
  });
});
