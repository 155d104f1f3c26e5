import fs from 'node:fs';
import path from 'node:path';
import { current } from '../../context.js';
import { ZkError } from '../../errors.js';
import { registeredRoot } from '../registry.js';
import type { Settings } from '../../settings.js';

/**
 * The corpus root: an explicit --root, else the corpus registered under the name --corpus gives
 * (src/corpus/registry.ts), else ZK_MEMORY_ROOT, else the nearest ancestor of the working
 * directory that holds a `.zk/` folder.
 */
export function resolveRoot(explicit: string | undefined, opts: { mustExist?: boolean; corpora?: string[] } = {}): string {
  const { settings, io } = current();
  return rootOf(explicit, namedRoot(settings, opts.corpora), io.cwd(), opts);
}

/** The root --corpus names (`corpora`, its values), else ZK_MEMORY_ROOT's value. */
export function namedRoot(settings: Settings, corpora: string[] | undefined): string | undefined {
  if (corpora && corpora.length > 1) throw new ZkError('usage', '--corpus names the one corpus of a command (only token create takes several)');
  return corpora?.length ? registeredRoot(corpora[0], settings) : settings.root();
}

/** `resolveRoot` from what it reads given: the named root (`namedRoot`) and the working directory. */
export function rootOf(explicit: string | undefined, named: string | undefined, cwd: string, opts: { mustExist?: boolean } = {}): string {
  const given = explicit ?? named;
  let root: string | undefined;
  if (given !== undefined) {
    root = path.resolve(cwd, given);
  } else {
    root = discoverRoot(cwd);
  }
  if (!root) throw new ZkError('no_root', 'no corpus root: pass --root DIR or set ZK_MEMORY_ROOT');
  if (opts.mustExist !== false) {
    let st: fs.Stats;
    try {
      st = fs.statSync(root);
    } catch {
      throw new ZkError('no_root', `corpus root does not exist: ${root}`);
    }
    if (!st.isDirectory()) throw new ZkError('no_root', `corpus root is not a directory: ${root}`);
  }
  return root;
}

/** The nearest folder at or above `start` that holds a `.zk/` folder. */
export function discoverRoot(start: string): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    try {
      if (fs.statSync(path.join(dir, '.zk')).isDirectory()) return dir;
    } catch {
      // keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
