import fs from 'node:fs';
import path from 'node:path';

// git, run as the `git` command: the corpus's own history. Nothing here ever fails the write it
// follows: every refusal comes back as a reason to skip the commit.

/** What became of a commit: made, or skipped with a one-line reason. */
export type CommitOutcome = { sha: string; message: string } | { skipped: string };

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  missing?: boolean;
}

// Paths are file names, never patterns; no prompt, no pager, no editor may wait for a person.
const GIT_ENV = { GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: 'true', LC_ALL: 'C' };

async function git(cwd: string, args: string[], input?: string, o: { patterns?: boolean } = {}): Promise<Run> {
  const env = o.patterns ? { ...GIT_ENV, GIT_LITERAL_PATHSPECS: '0' } : GIT_ENV;
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

function firstLine(text: string): string {
  return text.split('\n').map((l) => l.replace(/^(?:fatal|error): /, '').trim()).find(Boolean) ?? '';
}

/** Whether git refused only because another git process holds a lock (the index, a ref). */
function lockBusy(r: Run): boolean {
  return /\.lock'?:? File exists|cannot lock ref|Unable to create .*\.lock/i.test(r.stderr);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a writer waits for another's commit to finish before it gives up on its own. */
const LOCK_WAIT_MS = 10_000;

/** Run a git command that takes the index lock, again while another git process holds it. */
async function gitLocked(cwd: string, args: string[], input?: string): Promise<Run> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const r = await git(cwd, args, input);
    if (r.code === 0 || !lockBusy(r) || Date.now() > until) return r;
    await sleep(40 + Math.random() * 120);
  }
}

export interface WorkTree {
  /** The repository's top folder. */
  top: string;
  /** Its git folder (the worktree's own, for a linked worktree). */
  gitDir: string;
}

/** The git work tree holding `dir`, or why there is none to use. */
export async function workTree(dir: string): Promise<WorkTree | { skipped: string }> {
  const r = await git(dir, ['rev-parse', '--is-inside-work-tree', '--show-toplevel', '--absolute-git-dir']);
  if (r.missing) return { skipped: 'git is not installed (or not on PATH)' };
  const [inside, top, gitDir] = r.stdout.split('\n');
  if (r.code !== 0 || inside !== 'true') return { skipped: 'the corpus is not in a git work tree' };
  return { top, gitDir };
}

/** Why a commit must not be made now (a merge, rebase, cherry-pick or revert under way; a detached HEAD). */
async function notNow(dir: string, tree: WorkTree): Promise<string | undefined> {
  const underway: [string, string][] = [['MERGE_HEAD', 'a merge'], ['rebase-merge', 'a rebase'], ['rebase-apply', 'a rebase'], ['CHERRY_PICK_HEAD', 'a cherry-pick'], ['REVERT_HEAD', 'a revert']];
  for (const [name, what] of underway) if (fs.existsSync(path.join(tree.gitDir, name))) return `${what} is in progress`;
  const head = await git(dir, ['symbolic-ref', '-q', 'HEAD']);
  if (head.code !== 0) return 'HEAD is detached';
  return undefined;
}

/** NUL-separated names git printed. */
const names = (out: string) => out.split('\0').filter(Boolean);

/**
 * The paths (relative to `dir`) git can commit: tracked ones (present or deleted), and untracked
 * ones that exist and are not ignored. Answers which are untracked, to be announced to the index.
 */
async function committable(dir: string, paths: string[]): Promise<{ keep: string[]; untracked: string[] }> {
  const tracked = new Set(names((await git(dir, ['ls-files', '-z', '--', ...paths])).stdout));
  const fresh = new Set(names((await git(dir, ['ls-files', '-z', '--others', '--exclude-standard', '--', ...paths])).stdout));
  const keep = paths.filter((p) => tracked.has(p) || fresh.has(p));
  return { keep, untracked: keep.filter((p) => fresh.has(p)) };
}

/**
 * Commit exactly `paths` (relative to `dir`) as they are in the working tree, with `message`:
 * nothing else staged or modified goes in (`git commit --only`, which takes the index lock for the
 * whole commit, so two writers committing at once come one after the other). Hooks run. Never
 * throws: a refusal is a reason to skip.
 */
export async function commitPaths(dir: string, paths: string[], message: string): Promise<CommitOutcome> {
  const tree = await workTree(dir);
  if ('skipped' in tree) return tree;
  const why = await notNow(dir, tree);
  if (why) return { skipped: why };
  const { keep, untracked } = await committable(dir, [...new Set(paths)].sort());
  if (!keep.length) return { skipped: 'nothing to commit' };
  // A new file must be known to the index before `commit --only` takes it; intent-to-add adds no content.
  if (untracked.length) {
    const add = await gitLocked(dir, ['add', '--intent-to-add', '--', ...untracked]);
    if (add.code !== 0) return { skipped: `git add failed: ${firstLine(add.stderr) || `exit ${add.code}`}` };
  }
  const commit = await gitLocked(dir, ['commit', '--only', '--file=-', '--', ...keep], message);
  if (commit.code !== 0) {
    // Leave the index as it was: the new files go back to untracked.
    if (untracked.length) await gitLocked(dir, ['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...untracked]);
    const nothing = /nothing (?:added )?to commit|no changes added/i.test(commit.stdout + commit.stderr);
    if (nothing) return { skipped: 'nothing to commit' };
    if (lockBusy(commit)) return { skipped: 'another git process kept the repository locked' };
    return { skipped: `git commit failed: ${firstLine(commit.stderr) || firstLine(commit.stdout) || `exit ${commit.code}`} (a hook may have refused it)` };
  }
  // Its name from its own report (`[main 1a2b3c4] subject`): HEAD may have moved on already.
  const short = /^\[[^\]]*?([0-9a-f]{7,})\]/m.exec(commit.stdout)?.[1];
  const sha = await git(dir, ['rev-parse', '--verify', '--quiet', `${short ?? 'HEAD'}^{commit}`]);
  return { sha: sha.stdout.trim(), message };
}

/** The files of a corpus the tool versions: top-level notes, the archive, the trace. */
const TOOL_FILES = [':(glob)*.md', ':(glob).archive/**', '.zk/trace.jsonl'];

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

export interface LogEntry {
  sha: string;
  date: string;
  author: string;
  subject: string;
  /** The file's name in that commit (following renames and moves into the archive). */
  path?: string;
}

/**
 * The commits that touched `file` (following its renames and its move into `.archive/`), or the
 * whole corpus folder, newest first; undefined with the reason when there is no history to read.
 */
export async function gitLog(dir: string, o: { file?: string; limit?: number } = {}): Promise<LogEntry[] | { skipped: string }> {
  const tree = await workTree(dir);
  if ('skipped' in tree) return tree;
  const format = '--format=%x1e%H%x1f%aI%x1f%an%x1f%s';
  const args = ['log', format, ...(o.limit ? [`--max-count=${o.limit}`] : [])];
  const r = o.file
    ? await git(dir, [...args, '--follow', '--name-only', '--', o.file])
    : await git(dir, [...args, '--', '.']);
  if (r.code !== 0) {
    // A branch with no commits yet has no history.
    if (/does not have any commits|bad default revision|unknown revision/i.test(r.stderr)) return [];
    return { skipped: `git log failed: ${firstLine(r.stderr) || `exit ${r.code}`}` };
  }
  const realDir = o.file ? fs.realpathSync(dir) : dir;
  return r.stdout.split('\x1e').filter((c) => c.trim()).map((c) => {
    const [head, ...rest] = c.split('\n');
    const [sha, date, author, subject] = head.split('\x1f');
    const name = rest.map((l) => l.trim()).find(Boolean);
    return { sha, date, author, subject, ...(o.file && name ? { path: path.relative(realDir, path.join(tree.top, name)).split(path.sep).join('/') } : {}) };
  });
}
