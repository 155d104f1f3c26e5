import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { tempCorpus, zk } from './helpers/corpus.js';

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.org',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.org',
  GIT_CONFIG_NOSYSTEM: '1',
  HOME: '/nonexistent',
};

async function git(root: string, ...args: string[]): Promise<string> {
  const r = await execa('git', args, { cwd: root, env: GIT_ENV });
  return String(r.stdout);
}

describe('renaming a note in a git-versioned corpus', () => {
  it('check finds the stale links, repair fixes them, and the diff holds only the new targets', async () => {
    const root = path.join(tempCorpus(false), 'memory');
    await zk(['init', root]);
    await git(root, 'init', '-q');
    const zkw = async (...args: string[]) => (await zk(['--root', root, '--json', 'write', ...args, '--date', '2026-11-30'])).json.note.path as string;
    const judy = await zkw('judy', 'Judy', 'Judy paints lake sunrises.');
    const paris = await zkw('paris', 'Paris', `[Judy](${judy}) moved here.\n\n\`\`\`\n[Judy](${judy}) in a code sample\n\`\`\``);
    await zkw('cafe', 'Café', `Where [Judy](${judy}) meets people from [Paris](${paris}); see https://example.org/${judy}.`);
    expect((await zk(['tend', 'robustify', '--write', '--root', root])).code).toBe(0);
    expect((await zk(['tend', 'check', '--strict', '--root', root])).code).toBe(0);
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'notes with anchored links');

    const renamed = '20261130-judy-martin.md';
    fs.renameSync(path.join(root, judy), path.join(root, renamed));
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'rename by hand');

    const stale = await zk(['tend', 'check', '--root', root, '--json']);
    expect(stale.code).toBe(1);
    expect(stale.json.counts).toEqual({ ok: 1, stale: 2, broken: 0, unanchored: 0 });
    expect(
      stale.json.findings
        .filter((f: { verdict: string }) => f.verdict === 'stale')
        .map((f: { file: string; line: number; fix: unknown }) => [f.file, f.line, f.fix]),
    ).toEqual([
      ['20261130-cafe.md', 9, { target: renamed }],
      ['20261130-paris.md', 9, { target: renamed }],
    ]);

    expect((await zk(['tend', 'repair', '--write', '--root', root])).code).toBe(0);
    expect((await zk(['tend', 'check', '--strict', '--root', root])).code).toBe(0);

    expect((await git(root, 'diff', '--name-only')).split('\n')).toEqual(['.zk/trace.jsonl', '20261130-cafe.md', '20261130-paris.md']);
    const diff = await git(root, 'diff', '--unified=0', '--', '*.md');
    const removed = diff.split('\n').filter((l) => l.startsWith('-') && !l.startsWith('---'));
    const added = diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++'));
    expect(removed).toHaveLength(2);
    expect(added).toEqual(removed.map((l) => `+${l.slice(1).replace(`](${judy})`, `](${renamed})`)}`));
    expect(added.join('\n')).toContain(`https://example.org/${judy}`);
    expect(fs.readFileSync(path.join(root, paris), 'utf8')).toContain(`[Judy](${judy}) in a code sample`);
  });
});

describe('a .zk/.gitignore that is not a file', () => {
  it('is reported by check with the way out, since git would version the sidecar', async () => {
    const root = path.join(tempCorpus(false), 'memory');
    await zk(['init', root]);
    await git(root, 'init', '-q');
    expect((await zk(['--root', root, 'write', 'judy', 'Judy', 'Judy paints.'])).code).toBe(0);
    const gitignore = path.join(root, '.zk', '.gitignore');
    fs.rmSync(gitignore);
    fs.mkdirSync(gitignore);
    fs.writeFileSync(path.join(gitignore, 'notes.txt'), 'someone keeps things here\n');
    fs.writeFileSync(path.join(root, '.zk', 'lock'), 'a lock git should not see\n');
    // What the finding warns of: git now offers the lock for commit.
    expect(await git(root, 'status', '--porcelain', '--untracked-files=all', '--', '.zk/lock')).toBe('?? .zk/lock');

    const r = await zk(['--root', root, 'tend', 'check', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.findings.filter((f: { file: string }) => f.file === '.zk/.gitignore')).toEqual([
      {
        file: '.zk/.gitignore',
        line: 1,
        label: '.gitignore',
        target: '.zk/.gitignore',
        uuid: null,
        verdict: 'broken',
        reason: expect.stringMatching(
          /^\.zk\/\.gitignore is a folder, so git would version .*: move it out of \.zk\/, and the next write \(or zk-memory init\) writes the file$/,
        ),
      },
    ]);
    const text = await zk(['--root', root, 'tend', 'check']);
    expect(text.stdout).toMatch(/^\.zk\/\.gitignore:1: broken: .*\(\.zk\/\.gitignore is a folder, /m);

    // The way out: the folder moves away and init writes the file again.
    fs.renameSync(gitignore, path.join(root, 'gitignore-was-here'));
    expect((await zk(['init', root])).code).toBe(0);
    expect((await zk(['--root', root, 'tend', 'check'])).code).toBe(0);
    expect(await git(root, 'status', '--porcelain', '--untracked-files=all', '--', '.zk/lock')).toBe('');
  });
});
