import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { firstLine, git, names, notNow, workTree, type Run, type WorkTree } from './git.js';
import type { CommitOutcome, CommitPaths } from '../ports.js';

export type { CommitOutcome } from '../ports.js';

// A commit of exactly the files one call wrote, made as `git commit --only` makes one (a fresh
// index from HEAD plus those files, under the work tree's index lock) but by hand, so that of a
// shared log (the trace) only the call's own lines go in.

/** Whether git refused only because another git process holds a lock (the index, a ref). */
function lockBusy(r: Run): boolean {
  return /\.lock'?:? File exists|cannot lock ref|Unable to create .*\.lock/i.test(r.stderr);
}

const BUSY = 'another git process kept the repository locked';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a writer waits for another's commit to finish before it gives up on its own. */
const LOCK_WAIT_MS = 10_000;

/**
 * Hold the work tree's index lock (git's own `index.lock`) while `fn` runs, as `git commit` does
 * for a whole commit: writers committing at once come one after the other, and no git process
 * changes the index meanwhile.
 */
async function holdingIndexLock<T>(tree: WorkTree, fn: () => Promise<T>): Promise<T | { skipped: string }> {
  const lock = path.join(tree.gitDir, 'index.lock');
  for (const until = performance.now() + LOCK_WAIT_MS; ; ) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return { skipped: `cannot lock the git index: ${(err as Error).message}` };
      if (performance.now() > until) return { skipped: BUSY };
      await sleep(40 + Math.random() * 120);
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}

/** A scratch index file in the git folder for `fn`, removed after. */
async function withScratchIndex<T>(tree: WorkTree, fn: (index: string) => Promise<T>): Promise<T> {
  const index = path.join(tree.gitDir, `zk-memory-index-${process.pid}-${crypto.randomUUID()}`);
  try {
    return await fn(index);
  } finally {
    fs.rmSync(index, { force: true });
    fs.rmSync(`${index}.lock`, { force: true });
  }
}

/** The paths (relative to `dir`) git can commit: tracked ones (present or deleted), and untracked ones that exist and are not ignored. */
async function committable(dir: string, paths: string[]): Promise<string[]> {
  const known = new Set(names((await git(dir, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...paths])).stdout));
  return paths.filter((p) => known.has(p));
}

const textLines = (text: string) => text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);

/**
 * The text of a shared log to commit: the working tree's lines that are committed already or are
 * the call's own, in the working tree's order. Lines other calls added and nobody committed stay
 * out (uncommitted), as do lines still being written.
 */
export function logTextToCommit(committed: string, worktree: string, own: string): string {
  const allowed = new Map<string, number>();
  for (const l of [...textLines(committed), ...textLines(own)]) allowed.set(l, (allowed.get(l) ?? 0) + 1);
  const kept = textLines(worktree).filter((l) => {
    const n = allowed.get(l) ?? 0;
    allowed.set(l, n - 1);
    return n > 0;
  });
  return kept.map((l) => `${l}\n`).join('');
}

const failure = (what: string, r: Run) => `${what} failed: ${firstLine(r.stderr) || firstLine(r.stdout) || `exit ${r.code}`}`;

/**
 * Fill `index` with HEAD's tree (`base`). Read over a copy of the work tree's own index, each file
 * HEAD holds as that index does keeps the stat git saw it with, so the commit checks only the files
 * that moved since: read into an empty index, every file of the work tree was read and hashed
 * again (1.8 s of a commit at 50,000 notes). An index git cannot merge so is read over as before.
 */
async function readHead(dir: string, tree: WorkTree, index: string, base: string): Promise<Run> {
  const own = path.join(tree.gitDir, 'index');
  if (fs.existsSync(own)) {
    fs.copyFileSync(own, index);
    const merged = await git(dir, ['read-tree', '-m', base], undefined, { index });
    if (merged.code === 0) return merged;
    fs.rmSync(index, { force: true });
  }
  return git(dir, ['read-tree', base], undefined, { index });
}

/**
 * Fill `index` with HEAD's tree and this call's files: whole, or, for a shared log in `ownLines`,
 * with only its committed lines and the call's own. Answers why not, when git refuses.
 */
async function stage(dir: string, tree: WorkTree, index: string, keep: string[], ownLines: Record<string, string>): Promise<string | undefined> {
  const head = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const base = head.code === 0 ? head.stdout.trim() : undefined;
  if (base) {
    const r = await readHead(dir, tree, index, base);
    if (r.code !== 0) return failure('git read-tree', r);
  }
  const logs = keep.filter((p) => Object.hasOwn(ownLines, p) && fs.existsSync(path.join(dir, p)));
  const blobs: string[] = [];
  for (const p of logs) {
    const committed = base ? await git(dir, ['cat-file', 'blob', `${base}:${tree.prefix}${p}`]) : undefined;
    const text = logTextToCommit(committed?.code === 0 ? committed.stdout : '', fs.readFileSync(path.join(dir, p), 'utf8'), ownLines[p]);
    const blob = await git(dir, ['hash-object', '-w', '--stdin'], text);
    if (blob.code !== 0) return failure('git hash-object', blob);
    // --cacheinfo names the path from the top of the work tree.
    blobs.push('--cacheinfo', `100644,${blob.stdout.trim()},${tree.prefix}${p}`);
  }
  const whole = keep.filter((p) => !logs.includes(p));
  const r = await git(dir, ['update-index', '--add', '--remove', ...blobs, '--', ...whole], undefined, { index });
  return r.code === 0 ? undefined : failure('git update-index', r);
}

/** Why a `git commit` failed, as a reason to skip. */
function commitRefused(r: Run): string {
  if (/nothing (?:added )?to commit|no changes added/i.test(r.stdout + r.stderr)) return 'nothing to commit';
  if (lockBusy(r)) return BUSY;
  return `${failure('git commit', r)} (a hook may have refused it)`;
}

/**
 * Bring the work tree's own index up to the commit for the files it holds (as `--only` does), and
 * leave every other entry, what a person staged, as it was. Written while the lock is held, then
 * moved into place. Answers why not, when git refuses.
 */
async function catchUpIndex(tree: WorkTree, sha: string, files: string[]): Promise<string | undefined> {
  return withScratchIndex(tree, async (next) => {
    const own = path.join(tree.gitDir, 'index');
    if (fs.existsSync(own)) fs.copyFileSync(own, next);
    const r = await git(tree.top, ['reset', '-q', sha, '--', ...files], undefined, { index: next });
    if (r.code !== 0) return failure('git reset', r);
    fs.renameSync(next, own);
    return undefined;
  });
}

/** A commit's full name, and the files (from the top of the work tree) it changed. */
async function commitFiles(dir: string, rev: string): Promise<{ sha: string; files: string[] }> {
  const [sha, ...files] = names((await git(dir, ['diff-tree', '--root', '-r', '--name-only', '-z', rev])).stdout);
  return { sha: sha?.trim() ?? '', files };
}

/**
 * Commit exactly `paths` (relative to `dir`) as they are in the working tree, with `message`:
 * nothing else staged or modified goes in, and of a file in `ownLines` (a shared log, by its
 * path) only its committed lines and the given ones. Hooks run; a hook that adds files of its own
 * to the commit is warned of. The index lock is held for the whole commit, so two writers
 * committing at once come one after the other. Never throws: a refusal is a reason to skip.
 */
export const commitPaths: CommitPaths = async (dir, paths, message, o = {}) => {
  const tree = await workTree(dir);
  if ('skipped' in tree) return tree;
  const why = await notNow(dir, tree);
  if (why) return { skipped: why };
  const keep = await committable(dir, [...new Set(paths)].sort());
  if (!keep.length) return { skipped: 'nothing to commit' };
  return holdingIndexLock(tree, () =>
    withScratchIndex(tree, async (index): Promise<CommitOutcome> => {
      const refused = await stage(dir, tree, index, keep, o.ownLines ?? {});
      if (refused) return { skipped: refused };
      const commit = await git(dir, ['commit', '--file=-'], message, { index });
      if (commit.code !== 0) return { skipped: commitRefused(commit) };
      // Its name from its own report (`[main 1a2b3c4] subject`).
      const short = /^\[[^\]]*?([0-9a-f]{7,})\]/m.exec(commit.stdout)?.[1];
      const { sha, files } = await commitFiles(dir, short ?? 'HEAD');
      const warnings: string[] = [];
      const own = new Set(keep.map((p) => tree.prefix + p));
      const added = files.filter((f) => !own.has(f)).map((f) => path.posix.relative(`/${tree.prefix}`, `/${f}`));
      if (added.length) warnings.push(`a git hook added files this command did not write to its commit ${sha.slice(0, 12)}: ${added.join(', ')}`);
      const stale = await catchUpIndex(tree, sha, files);
      if (stale) warnings.push(`committed ${sha.slice(0, 12)}, but the git index still shows its files as before: ${stale}`);
      return { sha, message, ...(warnings.length ? { warnings } : {}) };
    }),
  );
};
