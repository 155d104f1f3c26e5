import path from 'node:path';
import { mergeAttributes, treeEntries, type TreeEntry } from '../adapters/git-sync.js';
import { ZkError } from '../errors.js';
import type { Place } from './resolve.js';
import { syncDir } from './state.js';

// What `sync` refuses to merge from a remote (docs/hosts.md#what-sync-refuses): anyone who can push
// to the remote would otherwise own every clone that syncs from it. A fetched tree is checked
// before anything of it is merged or checked out; the first thing found stops the sync.

/** The only files under `.zk/` that travel by git; everything else there is this host's own. */
const VERSIONED_SIDECAR = new Set(['.zk/trace.jsonl', '.zk/.gitignore']);
const TRACE = '.zk/trace.jsonl';

export type Unsafe = 'host_local' | 'archive' | 'attributes';

const REGULAR = /^100(644|755)$/;

/** The first component of a corpus path, as a case-insensitive file system would open it. */
const head = (rel: string) => rel.split('/')[0].toLowerCase();

/** The driver a path must merge with, or undefined for a path whose merge is not the tool's. */
function driverFor(rel: string): string | undefined {
  if (rel === TRACE) return 'zk-memory-trace';
  if (!rel.includes('/') && /\.md$/i.test(rel)) return 'zk-memory';
  if (/^\.archive\/[^/]+\.md$/i.test(rel)) return 'zk-memory';
  return undefined;
}

const listed = (paths: string[]) => (paths.length > 3 ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more` : paths.join(', '));

const NOTHING_DONE = 'nothing was merged or pushed';
const WAY_OUT = 'then sync again (docs/hosts.md#what-sync-refuses)';

function refuse(reason: Unsafe, paths: string[], message: string): ZkError {
  return new ZkError('unsafe_remote', `sync stopped: ${message}`, { reason, paths });
}

/** What the merge attribute says, for a person. */
function described(value: string): string {
  if (value === 'unset') return '-merge (every change on both sides a conflict)';
  if (value === 'set') return "merge (git's line merge)";
  if (value === 'unspecified') return "no merge driver (git's line merge)";
  return `merge=${value}`;
}

/**
 * Refuse to merge `tracking` (the fetched upstream) into the clone when its tree would let whoever
 * pushed it act on this host: files under `.zk/` that are host-local (a token store, an inbox
 * the LLM reads, the sync's own state), an `.archive` that is not a folder (a symlink would take
 * archived notes out of the corpus), or attributes that give a note, an archived note or the trace
 * any merge but the tool's own driver (a later line of `.gitattributes` wins in git).
 */
export async function refuseUnsafeTree(p: Place, tracking: string, attributesFile: string): Promise<void> {
  const rel = (e: TreeEntry) => e.path.slice(p.prefix.length);
  const fetched = await treeEntries(p.top, tracking, p.prefix);

  const hostLocal = fetched.filter((e) => head(rel(e)) === '.zk' && !(VERSIONED_SIDECAR.has(rel(e)) && REGULAR.test(e.mode))).map(rel);
  if (hostLocal.length) {
    throw refuse(
      'host_local',
      hostLocal,
      `${tracking} tracks host-local files under .zk/ (${listed(hostLocal)}), which never travel by git: a token store or an inbox from the remote would act on this host; ${NOTHING_DONE}. Remove them from the remote's branch (\`git rm -r --cached\` them in a fresh clone, commit, push), ${WAY_OUT}`,
    );
  }

  const archive = fetched.filter((e) => {
    const r = rel(e);
    return head(r) === '.archive' && (!r.includes('/') || e.mode === '120000');
  });
  if (archive.length) {
    const kind = archive[0].mode === '120000' ? 'a symlink' : archive[0].mode === '160000' ? 'a submodule' : 'a file';
    const what = rel(archive[0]).includes('/') ? `${kind} in .archive/ (${listed(archive.map(rel))})` : `.archive as ${kind}`;
    throw refuse(
      'archive',
      archive.map(rel),
      `${tracking} has ${what}: archived notes would be moved out of the corpus; ${NOTHING_DONE}. Make .archive a plain folder of notes again on the remote's branch (\`git rm\` it in a fresh clone, commit, push), ${WAY_OUT}`,
    );
  }

  // The paths whose merge matters: those of both sides (a rule may name one file), and the trace.
  const ours = await treeEntries(p.top, 'HEAD', p.prefix);
  const paths = new Set<string>([p.prefix + TRACE]);
  for (const e of [...fetched, ...ours]) if (REGULAR.test(e.mode) && driverFor(rel(e))) paths.add(e.path);
  const scratch = path.join(syncDir(p.root), `fetched-${process.pid}.index`);
  const found = await mergeAttributes(p.top, tracking, [...paths], scratch, attributesFile);
  const wrong = [...found].filter(([full, value]) => value !== driverFor(full.slice(p.prefix.length)));
  if (wrong.length) {
    const [full, value] = wrong[0];
    const first = full.slice(p.prefix.length);
    throw refuse(
      'attributes',
      wrong.map(([f]) => f.slice(p.prefix.length)),
      `the .gitattributes of ${tracking} would merge ${first} with ${described(value)}, not the tool's merge=${driverFor(first)}${wrong.length > 1 ? ` (and ${wrong.length - 1} more path(s))` : ''}, which could scramble or stall notes on every host; ${NOTHING_DONE}. Remove the line that says so from .gitattributes on the remote's branch (in a fresh clone: edit, commit, push; \`git check-attr merge -- PATH\` shows what git reads), ${WAY_OUT}`,
    );
  }
}
