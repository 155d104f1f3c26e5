import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZkError } from '../errors.js';
import type { Settings } from '../settings.js';

/** The longest path a Unix socket may have on Linux (`sun_path` holds 108 bytes with its NUL). */
export const SOCKET_PATH_MAX = 107;

/** Where a user's servers keep their sockets: `$XDG_RUNTIME_DIR/zk-memory`, else `zk-memory-<uid>` in the temp folder. */
export function socketFolder(settings: Settings): string {
  const runtime = settings.runtimeDir();
  return runtime ? path.join(runtime, 'zk-memory') : path.join(os.tmpdir(), `zk-memory-${uid()}`);
}

function uid(): number {
  return process.getuid?.() ?? 0;
}

/**
 * Make the socket folder when it is missing, and check that it is private: a folder (not a symlink
 * to one), owned by this user, that nobody else may enter. Another user who made the folder first
 * cannot receive our requests or answer them.
 */
export function ensureSocketFolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new ZkError('io', `cannot make the server's socket folder ${dir}: ${(err as Error).message}`);
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw new ZkError('io', `the server's socket folder ${dir} is not a folder`);
  if (st.uid !== uid()) throw new ZkError('io', `the server's socket folder ${dir} belongs to another user (uid ${st.uid})`);
  if ((st.mode & 0o077) !== 0)
    throw new ZkError('io', `the server's socket folder ${dir} may be entered by others (mode ${(st.mode & 0o777).toString(8)}): it must be 700`);
}

/** The corpus root as its server knows it: the real path, so every way of naming the folder finds one server. */
export function canonicalRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/**
 * The socket of the server of `root`: a name made from a hash of the root's real path, so the path
 * has the same length for any corpus path; a socket folder too deep for it is refused.
 */
export function socketPath(folder: string, root: string): string {
  // sha256 in JavaScript: Node's crypto module takes 3-4 ms to load, which every forwarded call would pay.
  const name = bytesToHex(sha256(utf8ToBytes(canonicalRoot(root)))).slice(0, 24);
  const file = path.join(folder, `${name}.sock`);
  if (Buffer.byteLength(file) > SOCKET_PATH_MAX) {
    throw new ZkError('io', `the server's socket path ${file} is longer than ${SOCKET_PATH_MAX} bytes: set XDG_RUNTIME_DIR or TMPDIR to a shorter folder`);
  }
  return file;
}
