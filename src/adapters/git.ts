import { spawn } from 'node:child_process';
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

export function git(cwd: string, args: string[], input?: string, o: GitOptions = {}): Promise<Run> {
  const env = { ...process.env, ...GIT_ENV, ...(o.patterns ? { GIT_LITERAL_PATHSPECS: '0' } : {}), ...(o.index ? { GIT_INDEX_FILE: o.index } : {}) };
  return new Promise((resolve) => {
    // git could not be started (not installed, a folder gone): said as missing.
    const missing = (why: string) => resolve({ code: -1, stdout: '', stderr: why, missing: true });
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      return missing((err as Error).message);
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    child.once('error', (e) => missing(e.message));
    child.once('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      // Ended by a signal: no exit code, as when it could not start.
      if (code === null) return missing(stderr);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr });
    });
    // git may end before it reads its input (a refusal): that is its answer, not an error here.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(input ?? '');
  });
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
