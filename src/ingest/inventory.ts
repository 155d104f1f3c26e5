import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../context.js';
import { ZkError } from '../errors.js';
import { documentKind, type DocumentKind } from './convert.js';

/** A file found under the source path: a document to read, or the reason it cannot be. */
export interface SourceFile {
  /** Path relative to the source folder (the file name when the source is one file), `/`-separated. */
  rel: string;
  abs: string;
  kind?: DocumentKind;
  unsupported?: string;
}

/** The largest source file read (ZK_MEMORY_INGEST_MAX_FILE bytes; default 64 MiB). */
export function maxSourceBytes(): number {
  return settings().ingestMaxFileBytes();
}

function classify(rel: string, abs: string, st: fs.Stats): SourceFile {
  const kind = documentKind(abs);
  if (!kind) {
    const ext = path.extname(abs);
    return { rel, abs, unsupported: `unsupported file type (${ext || 'no extension'})` };
  }
  if (st.size > maxSourceBytes()) return { rel, abs, unsupported: `too large: ${st.size} bytes (limit ${maxSourceBytes()}; set ZK_MEMORY_INGEST_MAX_FILE)` };
  return { rel, abs, kind };
}

/** Compare `/`-separated paths folder by folder, so a folder's files stay together. */
function byPath(a: SourceFile, b: SourceFile): number {
  const x = a.rel.split('/');
  const y = b.rel.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return x.length - y.length;
}

/**
 * Every file under `from` (a file or a folder, recursively) in sorted path order. Hidden names
 * (starting with `.`) are not part of a source tree; symlinked folders are listed, not followed.
 */
export function inventory(from: string): SourceFile[] {
  let st: fs.Stats;
  try {
    st = fs.statSync(from);
  } catch {
    throw new ZkError('not_found', `no such file or folder: ${from}`);
  }
  if (!st.isDirectory()) return [classify(path.basename(from), from, st)];
  const found: SourceFile[] = [];
  const inside = fs.realpathSync(from) + path.sep;
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const abs = path.join(dir, entry.name);
      const rel = prefix + entry.name;
      if (entry.isDirectory()) {
        walk(abs, `${rel}/`);
        continue;
      }
      let target: fs.Stats;
      try {
        target = fs.statSync(abs);
      } catch {
        found.push({ rel, abs, unsupported: 'broken symlink' });
        continue;
      }
      if (target.isDirectory()) found.push({ rel, abs, unsupported: 'symlinked folder (not followed)' });
      // A symlinked file is read only when it stays among the sources: a link to /etc/passwd is not a source.
      else if (entry.isSymbolicLink() && !fs.realpathSync(abs).startsWith(inside))
        found.push({ rel, abs, unsupported: 'symlink leads outside the sources (not followed)' });
      else if (!target.isFile()) found.push({ rel, abs, unsupported: 'not a regular file' });
      else found.push(classify(rel, abs, target));
    }
  };
  walk(from, '');
  return found.sort(byPath);
}
