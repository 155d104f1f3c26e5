import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../../errors.js';
import { ensureSidecar } from '../files/sidecar.js';
import { trace } from '../trace/trace.js';

/**
 * Make `dir` and its missing parents one level at a time, so a target that cannot be a folder
 * (under /proc, below a file) fails at once with a sentence saying why.
 */
function makeFolder(dir: string, target = dir): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(dir);
  } catch {
    st = undefined; // missing, or below something that is not a folder: the parent says which
  }
  if (st) {
    if (!st.isDirectory()) throw new ZkError('io', `cannot create a corpus at ${target}: ${dir} is a file, not a folder`);
    return;
  }
  const parent = path.dirname(dir);
  if (parent !== dir) makeFolder(parent, target);
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return;
    const why =
      code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? 'permission denied'
        : code === 'ENOENT'
          ? 'the parent folder does not accept new folders'
          : (code ?? 'error');
    throw new ZkError('io', `cannot create the folder ${dir}: ${why}`);
  }
}

/** Create a corpus (or make sure an existing one is complete: its .gitignore brought up to date). Idempotent. */
export function initCorpus(dir: string): { root: string; created: boolean } {
  const root = path.resolve(dir);
  makeFolder(root);
  const created = ensureSidecar(root);
  if (created) trace(root, 'init', { root: '.' });
  return { root, created };
}
