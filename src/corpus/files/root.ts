import fs from 'node:fs';
import path from 'node:path';
import { current } from '../../context.js';
import { ZkError } from '../../errors.js';

/**
 * The corpus root: an explicit --root, else ZK_MEMORY_ROOT, else the nearest ancestor of the
 * working directory that holds a `.zk/` folder.
 */
export function resolveRoot(explicit: string | undefined, opts: { mustExist?: boolean } = {}): string {
  const { settings, io } = current();
  return rootOf(explicit, settings.root(), io.cwd(), opts);
}

/** `resolveRoot` from what it reads given: ZK_MEMORY_ROOT's value (`named`) and the working directory. */
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
