import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNote } from '../src/corpus/ops/write.js';
import { ensureSidecar } from '../src/corpus/files/sidecar.js';
import type { ChatMessage } from '../src/llm/types.js';
import { startFakeLlm } from './helpers/fake-llm-server.js';
import { snapshot, tempDir, write, zk, zkProcess } from './helpers/corpus.js';

/** Fold what says DUPLICATE into the shown note titled Judy (as test/gardener-cli.test.ts does). */
const handlers = {
  record_merge_decision: (m: ChatMessage[]) => {
    const text = m.map((x) => x.content).join('\n');
    const memory = /<memory>\n([\s\S]*?)\n<\/memory>/.exec(text)?.[1] ?? '';
    const judy = /^id: (.+)\ntitle: Judy$/m.exec(text);
    return memory.includes('DUPLICATE') && judy ? { action: 'merge', target: judy[1], reason: 'same' } : { action: 'create', target: '', reason: 'separate' };
  },
};

let llm: Awaited<ReturnType<typeof startFakeLlm>>;
beforeAll(async () => {
  llm = await startFakeLlm(handlers);
});
afterAll(() => llm.close());

async function git(cwd: string, ...args: string[]): Promise<string> {
  const r = await execa('git', args, { cwd });
  return String(r.stdout);
}

const commits = async (cwd: string) => Number(await git(cwd, 'rev-list', '--count', 'HEAD'));

/** A git repository whose corpus lives in `memory/`, with one commit holding a corpus and an unrelated file. */
async function repo() {
  const top = tempDir('zk-git-');
  await git(top, 'init', '-q', '-b', 'main');
  for (const [k, v] of [
    ['user.name', 'Test'],
    ['user.email', 'test@example.org'],
    ['commit.gpgsign', 'false'],
    ['core.hooksPath', '.git/hooks'],
  ])
    await git(top, 'config', k, v);
  const root = path.join(top, 'memory');
  fs.mkdirSync(root);
  ensureSidecar(root);
  write(top, 'unrelated.txt', 'first\n');
  return { top, root };
}

async function commitAll(top: string, message = 'baseline') {
  await git(top, 'add', '-A');
  await git(top, 'commit', '-q', '-m', message);
}

/** Install `script` as the repository's pre-commit hook. */
function preCommitHook(top: string, script: string) {
  const hook = path.join(top, '.git', 'hooks', 'pre-commit');
  fs.mkdirSync(path.dirname(hook), { recursive: true });
  fs.writeFileSync(hook, script, { mode: 0o755 });
}

const run = (root: string, args: string[], env: Record<string, string> = llm.env) => zk(['--root', root, ...args], { env });

describe('a gardener pass with --commit', () => {
  it('makes one commit of its own files only, with every fold named; git revert restores the notes byte for byte', async () => {
    const { top, root } = await repo();
    const judy = writeNote(root, { slug: 'judy', title: 'Judy', body: 'Judy paints lakes at sunrise.' });
    const dup = writeNote(root, { slug: 'judy-again', title: 'Judy again', body: 'DUPLICATE: Judy the painter of lakes.' });
    const fan = writeNote(root, { slug: 'fan', title: 'Fan', body: `A fan of [Judy again](${dup.path}) <!-- uuid: ${dup.uuid} -->.` });
    await commitAll(top);
    write(top, 'unrelated.txt', 'first\nedited by a person\n');
    write(top, 'staged.txt', 'staged by a person\n');
    await git(top, 'add', 'staged.txt');
    const before = snapshot(root, { skip: /^\.zk/ });
    const head = await git(top, 'rev-parse', 'HEAD');

    const r = await run(root, ['tend-writes', '--commit', '--json', '--backend', 'rg']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.summary.merged).toBe(1);
    expect(r.stderr).not.toMatch(/warning/);
    expect(await commits(top)).toBe(2);
    expect(r.json.commit.sha).toBe(await git(top, 'rev-parse', 'HEAD'));
    expect(await git(top, 'rev-parse', 'HEAD^')).toBe(head);

    const files = (await git(top, 'show', '--name-status', '--format=', '-M', 'HEAD')).split('\n').sort();
    expect(files).toEqual(
      [
        `M\tmemory/${fan.path}`,
        `M\tmemory/${judy.path}`,
        'M\tmemory/.zk/trace.jsonl',
        expect.stringMatching(new RegExp(`^R\\d+\\tmemory/${dup.path}\\tmemory/\\.archive/${dup.path}$`)),
      ].sort(),
    );
    const message = await git(top, 'log', '-1', '--format=%B');
    expect(message).toMatch(/^tend-writes: .*1 merged/);
    expect(message).toContain(`- fold: "Judy again" (${dup.path}) into "Judy" (${judy.path})`);
    expect(r.json.commit.message.trim()).toBe(message.trim());
    // What people had in hand is untouched: still modified, still only staged.
    expect((await git(top, 'status', '--porcelain', '--', 'unrelated.txt', 'staged.txt')).split('\n').sort()).toEqual([' M unrelated.txt', 'A  staged.txt']);

    const status = await run(root, ['status', '--json']);
    expect(status.json.git).toEqual({ work_tree: true, uncommitted: 0 });

    // git revert wants an index matching HEAD: the person's staged file waits outside it meanwhile.
    await git(top, 'reset', '-q', '--', 'staged.txt');
    await git(top, 'revert', '--no-edit', 'HEAD');
    expect(snapshot(root, { skip: /^\.zk/ })).toEqual(before);
    expect(fs.existsSync(path.join(root, '.archive', dup.path))).toBe(false);
    expect((await run(root, ['tend', 'check'])).code).toBe(0);
    expect(fs.readFileSync(path.join(top, 'unrelated.txt'), 'utf8')).toBe('first\nedited by a person\n');
  });
});

describe('when a commit cannot be made, the write stands and the commit is skipped with a warning', () => {
  /** A write with --commit: exits as without it, leaves the note, warns once, and says why in the JSON. */
  async function writesWithoutCommit(root: string, reason: RegExp, runner = zk, env: Record<string, string> = {}) {
    const r = await runner(['--root', root, 'write', 'judy', 'Judy', 'Judy paints.', '--commit', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ ok: true, action: 'created', commit: { skipped: expect.stringMatching(reason) } });
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^warning: not committed to git: ${reason.source}`))]);
    expect(fs.existsSync(path.join(root, r.json.note.path))).toBe(true);
    const plain = await runner(['--root', root, 'write', 'bob', 'Bob', 'Bob sails.', '--json'], { env });
    expect(plain.code).toBe(r.code);
    return r;
  }

  it('outside a git work tree', async () => {
    const root = tempDir();
    ensureSidecar(root);
    await writesWithoutCommit(root, /the corpus is not in a git work tree/);
    const status = await zk(['--root', root, 'status', '--json']);
    expect(status.json.git).toEqual({ work_tree: false, reason: 'the corpus is not in a git work tree' });
    expect((await zk(['--root', root, 'log'])).code).toBe(1);
  });

  it('when git is not on PATH', async () => {
    const { root } = await repo();
    const bin = tempDir('zk-bin-');
    fs.symlinkSync(process.execPath, path.join(bin, 'node'));
    await writesWithoutCommit(root, /git is not installed/, zkProcess, { PATH: bin });
  });

  it('during a merge in progress', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    await git(top, 'checkout', '-q', '-b', 'other');
    write(top, 'unrelated.txt', 'theirs\n');
    await commitAll(top, 'theirs');
    await git(top, 'checkout', '-q', 'main');
    write(top, 'unrelated.txt', 'ours\n');
    await commitAll(top, 'ours');
    await execa('git', ['merge', 'other'], { cwd: top, reject: false });
    expect(fs.existsSync(path.join(top, '.git', 'MERGE_HEAD'))).toBe(true);
    await writesWithoutCommit(root, /a merge is in progress/);
    expect(await commits(top)).toBe(2);
  });

  it('with a detached HEAD', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    await git(top, 'checkout', '-q', '--detach');
    await writesWithoutCommit(root, /HEAD is detached/);
    expect(await commits(top)).toBe(1);
  });

  it('when a hook refuses the commit, and the index is left as it was', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    preCommitHook(top, '#!/bin/sh\necho "no commits today" >&2\nexit 1\n');
    const r = await writesWithoutCommit(root, /git commit failed: no commits today/);
    expect(await commits(top)).toBe(1);
    // The new note is untracked again, not left announced in the index.
    expect(await git(top, 'status', '--porcelain', '--', `memory/${r.json.note.path}`)).toBe(`?? memory/${r.json.note.path}`);
    const status = await zk(['--root', root, 'status', '--json']);
    expect(status.json.git).toEqual({ work_tree: true, uncommitted: 3 });
  });
});

describe('what a commit holds', () => {
  it("of the trace, the call's own lines only: lines of earlier calls that were not committed stay uncommitted", async () => {
    const { top, root } = await repo();
    await commitAll(top);
    const ann = await zk(['--root', root, 'write', 'ann', 'Ann', 'Ann writes.', '--commit', '--json']);
    const bob = await zk(['--root', root, 'write', 'bob', 'Bob', 'Bob writes, and nobody commits it.', '--json']);
    const cy = await zk(['--root', root, 'write', 'cy', 'Cy', 'Cy writes.', '--commit', '--json']);
    expect(cy.json.commit.sha, cy.stderr).toMatch(/^[0-9a-f]{40}$/);
    expect(cy.stderr).toBe('');

    const trace = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean);
    const bobs = trace.filter((l) => l.includes(bob.json.note.path));
    expect(bobs).toHaveLength(1);
    const committed = (await git(top, 'show', 'HEAD:memory/.zk/trace.jsonl')).split('\n').filter(Boolean);
    expect(committed).toEqual(trace.filter((l) => !bobs.includes(l)));
    expect(committed.some((l) => l.includes(ann.json.note.path)) && committed.some((l) => l.includes(cy.json.note.path))).toBe(true);
    // Bob's note and his line of the trace wait, unstaged, for whoever commits them.
    expect((await git(top, 'status', '--porcelain', '--', 'memory')).split('\n').sort()).toEqual([
      ' M memory/.zk/trace.jsonl',
      `?? memory/${bob.json.note.path}`,
    ]);
    const diff = (await git(top, 'diff', '--unified=0', '--', 'memory/.zk/trace.jsonl')).split('\n').filter((l) => /^[-+][^-+]/.test(l));
    expect(diff).toEqual(bobs.map((l) => `+${l}`));
  });

  it('a hook that adds files of its own to the commit: the commit is made, and the command warns of them', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    preCommitHook(top, '#!/bin/sh\ngit add -A\n');
    write(top, 'unrelated.txt', 'first\nedited by a person\n');
    const r = await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints.', '--commit', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const warning = `a git hook added files this command did not write to its commit ${r.json.commit.sha.slice(0, 12)}: ../unrelated.txt`;
    expect(r.json.commit).toMatchObject({ sha: await git(top, 'rev-parse', 'HEAD'), warnings: [warning] });
    expect(r.stderr.trim()).toBe(`warning: ${warning}`);
    expect((await git(top, 'show', '--name-only', '--format=', 'HEAD')).split('\n')).toContain('unrelated.txt');
    // The index holds what was committed: nothing shows as staged or changed afterwards.
    expect(await git(top, 'status', '--porcelain')).toBe('');
  });
});

describe('committing writers at once', () => {
  it('every writer ends up in history, each commit holding its own note', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    const names = ['ann', 'bea', 'cy', 'dee'];
    const runs = await Promise.all(
      names.map((n) => zkProcess(['--root', root, 'write', n, n, `${n} writes.`, '--json'], { env: { ZK_MEMORY_GIT_COMMIT: '1' } })),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.json.commit.sha).toMatch(/^[0-9a-f]{40}$/);
    }
    expect(await commits(top)).toBe(1 + names.length);
    for (const r of runs) {
      const files = (await git(top, 'show', '--name-only', '--format=', r.json.commit.sha)).split('\n').filter((f) => f.endsWith('.md'));
      expect(files).toEqual([`memory/${r.json.note.path}`]);
    }
    expect(await git(top, 'status', '--porcelain', '--', 'memory')).toBe('');
  });
});

describe('log', () => {
  it('follows a note into the archive, one line a commit, with its supersession chain', async () => {
    const { top, root } = await repo();
    await commitAll(top);
    const env = { ZK_MEMORY_GIT_COMMIT: '1' };
    const first = await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints.', '--json'], { env });
    await zk(['--root', root, 'write', 'judy-now', 'Judy now', 'Judy sails.', '--supersedes', 'judy'], { env });
    await zk(['--root', root, 'merge', 'judy', 'She moved.'], { env });
    await zk(['--root', root, 'archive', 'judy', '--reason', 'test'], { env });
    const r = await zk(['--root', root, 'log', first.json.note.uuid, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.note.path).toBe(`.archive/${first.json.note.path}`);
    expect(r.json.commits.map((c: { subject: string }) => c.subject)).toEqual([
      'archive: Judy',
      'merge: into Judy',
      'write: Judy now supersedes Judy',
      'write: Judy',
    ]);
    expect(r.json.chain.map((n: { title: string }) => n.title)).toEqual(['Judy now']);
    const text = await zk(['--root', root, 'log', 'judy']);
    expect(text.stdout.split('\n')[0]).toMatch(/^[0-9a-f]{10} \d{4}-\d\d-\d\d Test {2}archive: Judy$/);
    expect(text.stdout).toContain('superseded by: ');
    const all = await zk(['--root', root, 'log', '--json']);
    expect(all.json.commits.map((c: { subject: string }) => c.subject)).toEqual([
      'archive: Judy',
      'merge: into Judy',
      'write: Judy now supersedes Judy',
      'write: Judy',
      'baseline',
    ]);
  });

  it("follows the note's uuid: a slug reused after an archive has a history of its own, through a rename by hand", async () => {
    const { top, root } = await repo();
    await commitAll(top);
    const env = { ZK_MEMORY_GIT_COMMIT: '1' };
    const first = await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints.', '--date', '2026-11-30', '--json'], { env });
    await zk(['--root', root, 'merge', 'judy', 'She moved.'], { env });
    await zk(['--root', root, 'archive', 'judy', '--reason', 'another Judy'], { env });
    const second = await zk(['--root', root, 'write', 'judy', 'Judy', 'Another Judy sails.', '--date', '2026-11-30', '--json'], { env });
    expect(second.json.note.path).toBe(first.json.note.path);
    await zk(['--root', root, 'merge', 'judy', 'She sails on.'], { env });
    await git(top, 'mv', `memory/${second.json.note.path}`, 'memory/20261130-judy-sails.md');
    await git(top, 'commit', '-q', '-m', 'rename by hand');

    const subjects = (r: { json: { commits: { subject: string; path: string }[] } }) => r.json.commits.map((c) => [c.subject, c.path]);
    const now = await zk(['--root', root, 'log', 'judy-sails', '--json']);
    expect(now.code, now.stderr).toBe(0);
    expect(subjects(now)).toEqual([
      ['rename by hand', '20261130-judy-sails.md'],
      ['merge: into Judy', '20261130-judy.md'],
      ['write: Judy', '20261130-judy.md'],
    ]);
    const archived = await zk(['--root', root, 'log', first.json.note.uuid, '--json']);
    expect(subjects(archived)).toEqual([
      ['archive: Judy', '.archive/20261130-judy.md'],
      ['merge: into Judy', '20261130-judy.md'],
      ['write: Judy', '20261130-judy.md'],
    ]);
    expect(archived.json.commits.map((c: { sha: string }) => c.sha)).not.toContain(now.json.commits[2].sha);
    expect((await zk(['--root', root, 'log', 'judy-sails', '--limit', '1', '--json'])).json.commits).toHaveLength(1);
  });
});
