import os from 'node:os';
import { CORPUS_FILES, firstLine, workTree } from '../adapters/git.js';
import {
  abortMerge,
  aheadBehind,
  changedPaths,
  commitCorpusFiles,
  commitMerge,
  fetchRemote,
  mergeInProgress,
  mergeNoCommit,
  pushHead,
  revParse,
  unmergedPaths,
  upstreamOf,
  type Upstream,
} from '../adapters/git-sync.js';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { withCorpusLock, withLock } from '../corpus/lock/lock.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import { momentText } from '../corpus/note/moments.js';
import { resolveStructural, type Place, type Resolution } from './resolve.js';
import { driverCommands, installMergeRules, writeFallbackAttributes } from './rules.js';
import { refuseUnsafeTree } from './guard.js';
import { readSyncState, syncLockSite, writeSyncState } from './state.js';
import { crashAt } from '../corpus/ops/fault.js';

// `zk-memory sync` (docs/hosts.md): commit what is not committed, fetch, merge the upstream with
// the note-aware rules, push; on a push race, again, a bounded number of times. The merge runs
// under the corpus lock, so no write of the tool lands in a file git is rewriting; fetch and push
// run outside it.

/** How many times a sync fetches and merges again when its push lost a race. */
const ATTEMPTS = 5;

export interface ChangedFiles {
  added: string[];
  changed: string[];
  removed: string[];
}

export interface SyncOutcome {
  branch: string;
  upstream: string;
  /** The commit made of what was not committed yet, if any. */
  committed: { sha: string; files: string[] } | null;
  /** What came in from the remote: commits and the corpus files they changed. */
  incoming: { commits: number } & ChangedFiles;
  /** What went out: commits pushed and the corpus files they changed. */
  outgoing: { commits: number; pushed: boolean } & ChangedFiles;
  /** What the merge settled beyond git's own rules. */
  resolved: Resolution['resolved'];
  renamed: Resolution['renamed'];
  /** A merge a sync killed half-way had begun, undone (`undone`), or one a person finished, committed (`committed`). */
  recovered?: 'undone' | 'committed';
  attempts: number;
}

function conflictError(files: string[], prefix: string): ZkError {
  const shown = files.map((f) => (f.startsWith(prefix) ? f.slice(prefix.length) : f));
  return new ZkError(
    'merge_conflict',
    `sync stopped: both sides changed the same text in ${shown.join(', ')}; nothing was pushed. Edit the file${shown.length > 1 ? 's' : ''} to keep what is right (the conflict is marked <<<<<<< … >>>>>>>), then \`git add\` and \`git commit\`, and run \`zk-memory sync\` again; or \`git merge --abort\` to drop this merge`,
    { files: shown },
  );
}

/** Finish what an earlier sync left: a merge it was killed in is undone, one a person settled is committed. */
async function recover(p: Place): Promise<SyncOutcome['recovered']> {
  const state = readSyncState(p.root);
  if (!(await mergeInProgress(p.top))) {
    if (state) writeSyncState(p.root, undefined);
    return undefined;
  }
  if (state?.step === 'merging') {
    const r = await abortMerge(p.top);
    if (r.code !== 0)
      throw new ZkError(
        'io',
        `cannot undo the merge an earlier sync was stopped in: ${firstLine(r.stderr)} (a file was changed after the merge began: commit or set aside that change, then \`git merge --abort\` and sync again)`,
      );
    writeSyncState(p.root, undefined);
    return 'undone';
  }
  const left = await unmergedPaths(p.top);
  if (left.length)
    throw conflictError(
      left.map((u) => u.path),
      p.prefix,
    );
  const c = await commitMerge(p.top);
  if (c.code !== 0) throw new ZkError('refused', `cannot commit the merge under way: ${firstLine(c.stderr) || firstLine(c.stdout)}`);
  writeSyncState(p.root, undefined);
  return 'committed';
}

/** Commit the corpus's uncommitted files; the caller holds the corpus lock, so no append is caught half-way. */
async function commitWritten(p: Place): Promise<SyncOutcome['committed']> {
  return (await commitCorpusFiles(p.root, p.top, CORPUS_FILES, `Notes written on ${os.hostname()}, committed before a sync\n`)) ?? null;
}

function mergeMessage(u: Upstream, r: Resolution): string {
  const lines = [
    ...r.renamed.map((m) => `${m.from} and ${m.to}: two notes written under one name, both kept`),
    ...r.resolved
      .filter((x) => x.how === 'merged into the archived copy')
      .map((x) => `${x.path}: archived, and merged into meanwhile: the fragments are in the archived copy`),
  ];
  return `Merge ${u.tracking} into ${u.branch} (zk-memory sync)\n${lines.length ? `\n${lines.map((l) => `- ${l}`).join('\n')}\n` : ''}`;
}

const NOTHING: Resolution = { resolved: [], renamed: [], left: [] };

/** Merge the upstream into HEAD under the corpus lock: git's merge, the driver, then what it left. */
function mergeUpstream(p: Place, u: Upstream, attributesFile: string): Promise<Resolution> {
  return withCorpusLock(p.root, async () => {
    await commitWritten(p);
    const head = (await revParse(p.top, 'HEAD')) ?? '';
    writeSyncState(p.root, { step: 'merging', head, since: momentText(now()) });
    const merged = await mergeNoCommit(p.top, u.tracking, driverCommands(), attributesFile);
    crashAt('sync-mid-merge');
    if (!(await mergeInProgress(p.top))) {
      writeSyncState(p.root, undefined);
      if (merged.code !== 0) throw new ZkError('refused', `git refused the merge: ${firstLine(merged.stderr) || firstLine(merged.stdout)}`);
      return NOTHING;
    }
    const r = await resolveStructural(p, await unmergedPaths(p.top));
    if (r.left.length) {
      writeSyncState(p.root, { step: 'conflict', head, since: momentText(now()), files: r.left });
      throw conflictError(r.left, p.prefix);
    }
    crashAt('sync-before-merge-commit');
    const c = await commitMerge(p.top, mergeMessage(u, r));
    if (c.code !== 0) throw new ZkError('refused', `git refused to commit the merge (a hook?): ${firstLine(c.stderr) || firstLine(c.stdout)}`);
    writeSyncState(p.root, undefined);
    return r;
  });
}

function summarize(p: Place, changes: { status: string; path: string }[], into: ChangedFiles): void {
  for (const c of changes) {
    const rel = c.path.startsWith(p.prefix) ? c.path.slice(p.prefix.length) : c.path;
    const list = c.status === 'A' ? into.added : c.status === 'D' ? into.removed : into.changed;
    if (!list.includes(rel)) list.push(rel);
  }
}

const unreachable = (u: Upstream, why: string) =>
  new ZkError(
    'remote_unreachable',
    `cannot reach the remote ${u.remote}: ${why}; nothing is lost: what was written here is committed, and the next sync sends it`,
  );

/** Sync the corpus's branch with its upstream. */
export async function syncCorpus(root: string): Promise<SyncOutcome> {
  const tree = await workTree(root);
  if ('skipped' in tree) throw new ZkError('refused', `sync needs the corpus in a git work tree: ${tree.skipped}`);
  const p: Place = { top: tree.top, prefix: tree.prefix, root };
  // `.zk/.gitignore` keeps the sync's own lock and state out of git (an older corpus lacks the entry).
  ensureSidecar(root);
  return withLock(syncLockSite(root), async () => {
    await installMergeRules(root, tree);
    const attributes = writeFallbackAttributes(root, p.prefix);
    const recovered = await recover(p);
    const u = await upstreamOf(p.top);
    if ('missing' in u) throw new ZkError('refused', `sync needs a branch with an upstream: ${u.missing} (set one with \`git push -u REMOTE BRANCH\`)`);
    const out: SyncOutcome = {
      branch: u.branch,
      upstream: u.tracking,
      committed: await withCorpusLock(root, () => commitWritten(p)),
      incoming: { commits: 0, added: [], changed: [], removed: [] },
      outgoing: { commits: 0, pushed: false, added: [], changed: [], removed: [] },
      resolved: [],
      renamed: [],
      ...(recovered ? { recovered } : {}),
      attempts: 0,
    };
    crashAt('sync-after-commit');
    for (out.attempts = 1; out.attempts <= ATTEMPTS; out.attempts++) {
      const fetched = await fetchRemote(p.top, u);
      if (fetched.code !== 0) throw unreachable(u, firstLine(fetched.stderr) || `git fetch exit ${fetched.code}`);
      crashAt('sync-after-fetch');
      const { behind } = await aheadBehind(p.top, u.tracking);
      if (behind) {
        // Checked before any of it is merged or checked out: a remote must never own the clone.
        await refuseUnsafeTree(p, u.tracking, attributes);
        const before = (await revParse(p.top, 'HEAD')) ?? '';
        const r = await mergeUpstream(p, u, attributes);
        out.incoming.commits += behind;
        out.resolved.push(...r.resolved);
        out.renamed.push(...r.renamed);
        summarize(p, await changedPaths(p.top, before, 'HEAD', p.prefix), out.incoming);
      }
      crashAt('sync-before-push');
      const { ahead } = await aheadBehind(p.top, u.tracking);
      if (!ahead) return out;
      const remoteWas = (await revParse(p.top, u.tracking)) ?? '';
      const pushed = await pushHead(p.top, u);
      if ('ok' in pushed) {
        out.outgoing = { commits: ahead, pushed: true, added: [], changed: [], removed: [] };
        summarize(p, await changedPaths(p.top, remoteWas, 'HEAD', p.prefix), out.outgoing);
        return out;
      }
      if ('failed' in pushed) throw unreachable(u, pushed.failed);
    }
    out.attempts = ATTEMPTS;
    throw new ZkError('busy', `the remote kept moving: ${ATTEMPTS} pushes lost the race to other hosts; everything is committed here, run sync again`);
  });
}
