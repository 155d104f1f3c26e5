import fs from 'node:fs';
import path from 'node:path';

// git, run as the `git` command: the corpus's own history. Nothing here ever fails the write it
// follows: every refusal comes back as a reason to skip the commit. Committing is in
// src/adapters/git-commit.ts, reading history in src/adapters/git-log.ts.

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

export interface GitOptions {
  /** Pathspecs are patterns (`:(glob)*.md`), not file names. */
  patterns?: boolean;
  /** An index file to use instead of the work tree's own (GIT_INDEX_FILE). */
  index?: string;
}

// Paths are file names, never patterns; no prompt, no pager, no editor may wait for a person.
const GIT_ENV = { GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C' };

export async function git(cwd: string, args: string[], input?: string, o: GitOptions = {}): Promise<Run> {
  const env = { ...GIT_ENV, ...(o.patterns ? { GIT_LITERAL_PATHSPECS: '0' } : {}), ...(o.index ? { GIT_INDEX_FILE: o.index } : {}) };
  try {
    // Loaded when git runs, not with every command that might commit (it costs about 100 ms).
    const { execa } = await import('execa');
    const r = await execa('git', args, { cwd, reject: false, env, input: input ?? '', stripFinalNewline: false });
    // No exit code at all: git could not be started.
    if (r.exitCode === undefined) return { code: -1, stdout: '', stderr: String(r.stderr ?? ''), missing: true };
    return { code: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  } catch (err) {
    return { code: -1, stdout: '', stderr: (err as Error).message, missing: true };
  }
}

export function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.replace(/^(?:fatal|error): /, '').trim())
      .find(Boolean) ?? ''
  );
}

/** NUL-separated names git printed. */
export const names = (out: string) => out.split('\0').filter(Boolean);

export interface WorkTree {
  /** The repository's top folder. */
  top: string;
  /** Its git folder (the worktree's own, for a linked worktree). */
  gitDir: string;
  /** The folder asked about, relative to the top: `''`, or a path ending in `/`. */
  prefix: string;
}

/**
 * Whether git could find a repository for `dir`: a `.git` (folder or file) in it or a folder above,
 * or GIT_DIR set. Without one git would only say so; starting it from a large process (a server)
 * costs a fork of all its memory, on every `status`.
 */
function gitMayFind(dir: string): boolean {
  if (process.env.GIT_DIR) return true;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.git'))) return true;
    if (path.dirname(d) === d) return false;
  }
}

/** The git work tree holding `dir`, or why there is none to use. */
export async function workTree(dir: string): Promise<WorkTree | { skipped: string }> {
  if (!gitMayFind(dir)) return { skipped: 'the corpus is not in a git work tree' };
  const r = await git(dir, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir', '--show-prefix']);
  if (r.missing) return { skipped: 'git is not installed (or not on PATH)' };
  const [inside, top, gitDir, prefix] = r.stdout.split('\n');
  if (r.code !== 0 || inside !== 'true') return { skipped: 'the corpus is not in a git work tree' };
  return { top, gitDir, prefix: prefix ?? '' };
}

/** Why a commit must not be made now (a merge, rebase, cherry-pick or revert under way; a detached HEAD). */
export async function notNow(dir: string, tree: WorkTree): Promise<string | undefined> {
  const underway: [string, string][] = [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
  ];
  for (const [name, what] of underway) if (fs.existsSync(path.join(tree.gitDir, name))) return `${what} is in progress`;
  const head = await git(dir, ['symbolic-ref', '-q', 'HEAD']);
  if (head.code !== 0) return 'HEAD is detached';
  return undefined;
}

/** The files of a corpus the tool versions: top-level notes, the archive, the trace. */
const TOOL_FILES = [':(glob)*.md', ':(glob).archive/**', '.zk/trace.jsonl'];

/** Every versioned file of a corpus, as patterns: the tool's files and the rules for git itself. */
export const CORPUS_FILES = [...TOOL_FILES, '.zk/.gitignore', '.gitattributes'];

export type GitState = { work_tree: true; uncommitted: number } | { work_tree: false; reason: string };

/** Whether the corpus is in a git work tree, and how many of the files the tool writes are not committed. */
export async function gitState(dir: string): Promise<GitState> {
  const tree = await workTree(dir);
  if ('skipped' in tree) return { work_tree: false, reason: tree.skipped };
  const r = await git(dir, ['status', '--porcelain', '-z', '--untracked-files=all', '--', ...TOOL_FILES], undefined, { patterns: true });
  const records = r.stdout.split('\0').filter(Boolean);
  let n = 0;
  // A rename's record is followed by its old name, which is not a change of its own.
  for (let i = 0; i < records.length; i++, n++) if (/^[RC]|^.[RC]/.test(records[i])) i++;
  return { work_tree: true, uncommitted: n };
}
