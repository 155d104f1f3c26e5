import fs from 'node:fs';
import { ZkError } from '../errors.js';
import { firstLine, git, names, type Run } from './git.js';

// git as `sync` uses it: the branch's upstream, fetch, merge, the stages of a conflicted path,
// push. Every command runs from the top of the work tree, so paths are the repository's own.

export interface Upstream {
  /** The local branch (`main`). */
  branch: string;
  /** The remote's name (`origin`). */
  remote: string;
  /** The branch on the remote (`refs/heads/main`). */
  ref: string;
  /** The remote-tracking name to merge (`origin/main`). */
  tracking: string;
}

/** The current branch's upstream, or why there is none. */
export async function upstreamOf(top: string): Promise<Upstream | { missing: string }> {
  const head = await git(top, ['symbolic-ref', '-q', '--short', 'HEAD']);
  if (head.code !== 0) return { missing: 'HEAD is detached' };
  const branch = head.stdout.trim();
  const remote = (await git(top, ['config', '--get', `branch.${branch}.remote`])).stdout.trim();
  const ref = (await git(top, ['config', '--get', `branch.${branch}.merge`])).stdout.trim();
  const tracking = await git(top, ['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{u}']);
  if (!remote || !ref || tracking.code !== 0) return { missing: `branch ${branch} has no upstream` };
  return { branch, remote, ref, tracking: tracking.stdout.trim() };
}

/** Why talking to the remote failed, in one line. */
export const remoteFailure = (r: Run) => firstLine(r.stderr) || firstLine(r.stdout) || `exit ${r.code}`;

/** Settings every sync command runs with: no prompt for a password or a host key, no editor. */
const QUIET = ['-c', 'core.askPass=true', '-c', 'credential.interactive=false'];

export const fetchRemote = (top: string, u: Upstream) => git(top, [...QUIET, 'fetch', '--quiet', '--no-write-fetch-head', u.remote]);

/** Push HEAD to the upstream branch; `rejected` when the remote moved on meanwhile. */
export async function pushHead(top: string, u: Upstream): Promise<{ ok: true } | { rejected: string } | { failed: string }> {
  const r = await git(top, [...QUIET, 'push', '--porcelain', u.remote, `HEAD:${u.ref}`]);
  if (r.code === 0) return { ok: true };
  // Another host pushed first: refused as not a fast-forward, or, when it landed while this push
  // was under way, as a ref that moved from the value this push expected.
  if (/\[rejected\]|non-fast-forward|fetch first|stale info|cannot lock ref|failed to update ref/i.test(r.stdout + r.stderr))
    return { rejected: remoteFailure(r) };
  return { failed: remoteFailure(r) };
}

export async function revParse(top: string, rev: string): Promise<string | undefined> {
  const r = await git(top, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  return r.code === 0 ? r.stdout.trim() : undefined;
}

/** How many commits HEAD has that `other` lacks, and the other way round. */
export async function aheadBehind(top: string, other: string): Promise<{ ahead: number; behind: number }> {
  const r = await git(top, ['rev-list', '--left-right', '--count', `HEAD...${other}`]);
  const [ahead, behind] = r.stdout.trim().split(/\s+/).map(Number);
  return { ahead: ahead || 0, behind: behind || 0 };
}

/**
 * Merge `rev` into HEAD without committing, with the merge drivers given on the command line (by
 * name, so the ones that run are this build's, whatever the clone's config says) and the rules'
 * own attributes file under every `.gitattributes` (src/sync/rules.ts). Fast-forwards
 * when it can. Answers git's run; conflicts are read after with unmergedPaths.
 */
export function mergeNoCommit(top: string, rev: string, drivers: Record<string, string>, attributesFile: string): Promise<Run> {
  const config = [
    ...Object.entries(drivers).flatMap(([name, command]) => ['-c', `merge.${name}.driver=${command}`]),
    '-c',
    `core.attributesFile=${attributesFile}`,
  ];
  return git(top, [...QUIET, ...config, 'merge', '--no-commit', '--no-edit', '--quiet', rev]);
}

/** A conflicted path and which of its stages exist: 1 base, 2 ours, 3 theirs. */
export interface Unmerged {
  path: string;
  stages: Set<number>;
}

export async function unmergedPaths(top: string): Promise<Unmerged[]> {
  const r = await git(top, ['ls-files', '--unmerged', '-z', '--full-name']);
  const byPath = new Map<string, Set<number>>();
  for (const entry of names(r.stdout)) {
    const m = /^\d+ [0-9a-f]+ (\d)\t(.*)$/s.exec(entry);
    if (!m) continue;
    if (!byPath.has(m[2])) byPath.set(m[2], new Set());
    byPath.get(m[2])!.add(Number(m[1]));
  }
  return [...byPath].map(([path, stages]) => ({ path, stages }));
}

/** The text of one stage of a conflicted path. */
export async function stageText(top: string, stage: number, path: string): Promise<string> {
  const r = await git(top, ['cat-file', 'blob', `:${stage}:${path}`]);
  if (r.code !== 0) throw new ZkError('io', `git cat-file :${stage}:${path} failed: ${remoteFailure(r)}`);
  return r.stdout;
}

/** The paths HEAD's tree holds under a folder (`.archive/`), from the top. */
export async function treePaths(top: string, rev: string, under: string): Promise<string[]> {
  const r = await git(top, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', rev, '--', under]);
  return names(r.stdout);
}

/** One entry of a tree: its mode (`100644` a file, `120000` a symlink, `160000` a submodule) and path from the top. */
export interface TreeEntry {
  mode: string;
  path: string;
}

/** Every file (blob, symlink, submodule) of a commit's tree under a folder, from the top. */
export async function treeEntries(top: string, rev: string, under: string): Promise<TreeEntry[]> {
  const r = await git(top, ['ls-tree', '-r', '-z', '--full-tree', rev, ...(under ? ['--', under] : [])]);
  if (r.code !== 0) throw new ZkError('io', `git ls-tree ${rev} failed: ${remoteFailure(r)}`);
  return names(r.stdout).flatMap((entry) => {
    const m = /^(\d+) \w+ [0-9a-f]+\t(.*)$/s.exec(entry);
    return m ? [{ mode: m[1], path: m[2] }] : [];
  });
}

/**
 * The `merge` attribute git gives each path when `rev`'s tree is checked out: its `.gitattributes`
 * files (read from a scratch index at `indexFile`, never the work tree), over `attributesFile`
 * (as a merge of `sync` reads them), under the clone's own `info/attributes`. `set`, `unset`,
 * `unspecified`, or the driver's name.
 */
export async function mergeAttributes(top: string, rev: string, paths: string[], indexFile: string, attributesFile: string): Promise<Map<string, string>> {
  try {
    const read = await git(top, ['read-tree', rev], undefined, { index: indexFile });
    if (read.code !== 0) throw new ZkError('io', `git read-tree ${rev} failed: ${remoteFailure(read)}`);
    const r = await git(
      top,
      ['-c', `core.attributesFile=${attributesFile}`, 'check-attr', '--cached', '-z', '--stdin', 'merge'],
      paths.map((p) => `${p}\0`).join(''),
      { index: indexFile },
    );
    if (r.code !== 0) throw new ZkError('io', `git check-attr failed: ${remoteFailure(r)}`);
    const parts = r.stdout.split('\0');
    const out = new Map<string, string>();
    for (let i = 0; i + 2 < parts.length; i += 3) out.set(parts[i], parts[i + 2]);
    return out;
  } finally {
    fs.rmSync(indexFile, { force: true });
  }
}

/** Stage a path as it is in the work tree (present: added; gone: removed). */
export async function stagePaths(top: string, paths: string[]): Promise<Run> {
  return git(top, ['add', '--all', '--', ...paths]);
}

export const mergeInProgress = async (top: string) => (await revParse(top, 'MERGE_HEAD')) !== undefined;

/**
 * Undo the merge under way. The index's record of each file is refreshed first: a file the merge
 * staged and then wrote (src/sync/resolve.ts) has the staged bytes but not their file times, and
 * git would take it for a change of someone's that the undo must not overwrite.
 */
export async function abortMerge(top: string): Promise<Run> {
  await git(top, ['update-index', '-q', '--refresh']);
  return git(top, ['merge', '--abort']);
}

/** Commit the merge under way, with `message` (else the message git prepared). */
export function commitMerge(top: string, message?: string): Promise<Run> {
  return git(top, ['commit', '--no-edit', '--quiet', ...(message === undefined ? [] : ['--file=-'])], message);
}

/** The paths (from `dir`) of changed, added or removed files among `patterns`, as `git status` sees them. */
async function changedFiles(dir: string, patterns: string[]): Promise<string[]> {
  const r = await git(dir, ['status', '--porcelain', '-z', '--untracked-files=all', '--no-renames', '--', ...patterns], undefined, { patterns: true });
  if (r.code !== 0) throw new ZkError('io', `git status failed: ${remoteFailure(r)}`);
  // Paths in the porcelain format are from the top; the commit below runs from the top too.
  return names(r.stdout).map((rec) => rec.slice(3));
}

/**
 * Commit every change of the corpus's versioned files (`patterns`, from the corpus folder `dir`),
 * and nothing else staged: `git commit --only`. Answers the new commit and its files, or undefined
 * with nothing to commit.
 */
export async function commitCorpusFiles(dir: string, top: string, patterns: string[], message: string): Promise<{ sha: string; files: string[] } | undefined> {
  const files = await changedFiles(dir, patterns);
  if (!files.length) return undefined;
  const add = await git(top, ['add', '--all', '--', ...files]);
  if (add.code !== 0) throw new ZkError('io', `git add failed: ${remoteFailure(add)}`);
  const r = await git(top, ['commit', '--quiet', '--only', '--file=-', '--', ...files], message);
  if (r.code !== 0) throw new ZkError('io', `git commit failed: ${remoteFailure(r)}`);
  return { sha: (await revParse(top, 'HEAD')) ?? '', files };
}

/** What changed between two commits, under a folder: `A`, `M`, `D` (renames as a delete and an add). */
export async function changedPaths(top: string, from: string, to: string, under: string): Promise<{ status: string; path: string }[]> {
  const r = await git(top, ['diff', '--name-status', '--no-renames', '-z', from, to, '--', under || '.']);
  const parts = names(r.stdout);
  const out: { status: string; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push({ status: parts[i][0], path: parts[i + 1] });
  return out;
}
