import fs from 'node:fs';
import path from 'node:path';
import { settings } from '../../context.js';
import { ZkError } from '../../errors.js';
import type { ImportFailure } from './items.js';

// Reading a folder that is imported (a vault, a project, a memory folder): every Markdown file
// below it, nested folders included, and nothing outside it. A symlink is followed only when it
// stays inside the folder; hidden files and folders (`.obsidian/`, `.git/`, `.trash/`) are not read.

export interface FolderFile {
  /** The path below the folder, with `/` between parts. */
  rel: string;
  text: string;
  mtimeMs: number;
}

export interface Folder {
  files: FolderFile[];
  /** Files that are not Markdown, by path below the folder. */
  attachments: string[];
  failed: ImportFailure[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Every Markdown file below `dir` (by path), the other files listed, and what could not be read. */
export function readFolder(dir: string): Folder {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) throw new ZkError('usage', `${dir}: no such folder`);
  if (!st.isDirectory()) throw new ZkError('usage', `${dir}: not a folder`);
  const real = fs.realpathSync(dir);
  const limit = settings().maxBodyBytes();
  const out: Folder = { files: [], attachments: [], failed: [] };
  const walk = (abs: string, rel: string) => {
    for (const d of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (d.name.startsWith('.')) continue;
      const file = path.join(abs, d.name);
      const r = rel ? `${rel}/${d.name}` : d.name;
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (d.isSymbolicLink()) {
        let target: string;
        try {
          target = fs.realpathSync(file);
        } catch {
          out.failed.push({ item: r, reason: 'broken symlink' });
          continue;
        }
        if (target !== real && !target.startsWith(real + path.sep)) {
          out.failed.push({ item: r, reason: 'symlink leads outside the folder' });
          continue;
        }
        // A folder reached through a link inside the folder is read where it really is: never twice, never in a loop.
        if (fs.statSync(target).isDirectory()) continue;
        isFile = fs.statSync(target).isFile();
        isDir = false;
      }
      if (isDir) walk(file, r);
      else if (isFile && /\.md$/i.test(d.name)) readOne(file, r, limit, out);
      else if (isFile) out.attachments.push(r);
    }
  };
  walk(dir, '');
  return out;
}

function readOne(file: string, rel: string, limit: number, out: Folder): void {
  const st = fs.statSync(file);
  if (st.size > limit) {
    out.failed.push({ item: rel, reason: `${st.size} bytes, over the ${limit} a note may have (ZK_MEMORY_MAX_BODY)` });
    return;
  }
  try {
    out.files.push({ rel, text: decoder.decode(fs.readFileSync(file)).replace(/^\uFEFF/, ''), mtimeMs: st.mtimeMs });
  } catch {
    out.failed.push({ item: rel, reason: 'not valid UTF-8' });
  }
}
