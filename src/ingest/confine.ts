import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';

// Where a reader other than the host's owner may take sources from (docs/mcp.md): a client of MCP
// over HTTP holds a token, not an account on the host, so it reads only under the folders the
// owner allowed (`serve --ingest-from DIR`), never elsewhere through a symlink.

/** Whether `p` is `folder` or lies under it (both absolute and normalized). */
export function isWithin(p: string, folder: string): boolean {
  return p === folder || p.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

function realFolder(folder: string): string | undefined {
  try {
    return fs.realpathSync(folder);
  } catch {
    return undefined; // gone since the server started: it allows nothing any more
  }
}

/**
 * The real path of `from` when it lies inside one of `folders`, both as written (absolute, or
 * relative to the first folder) and once every symlink is resolved; else a one-line refusal that
 * says what is allowed. Whether a path outside the folders exists is never told.
 */
export function confinedSource(from: string, folders: string[]): string {
  if (!folders.length) {
    throw new ZkError(
      'refused',
      'this server reads no files for ingest_start (its owner allowed no folder with serve --ingest-from DIR): pass the document itself as text, with a name',
    );
  }
  const reals = folders.map(realFolder);
  const allowed = `the folders this server allows (${folders.join(', ')}), or a document passed as text with a name`;
  const abs = path.resolve(reals[0] ?? path.resolve(folders[0]), from);
  if (!folders.some((f, i) => isWithin(abs, path.resolve(f)) || (reals[i] !== undefined && isWithin(abs, reals[i]!)))) {
    throw new ZkError('refused', `ingest_start reads only under ${allowed}; ${JSON.stringify(from)} is elsewhere`);
  }
  let real: string;
  try {
    real = fs.realpathSync(abs);
  } catch {
    throw new ZkError('not_found', `no such file or folder: ${from}`);
  }
  if (!reals.some((f) => f !== undefined && isWithin(real, f))) {
    throw new ZkError('refused', `ingest_start reads only under ${allowed}; ${JSON.stringify(from)} leads elsewhere through a symlink`);
  }
  return real;
}
