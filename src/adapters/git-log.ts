import fs from 'node:fs';
import path from 'node:path';
import { firstLine, git, workTree, type Run } from './git.js';

// A corpus's history as git holds it: the commits of the whole folder, or of one note.

export interface LogEntry {
  sha: string;
  date: string;
  author: string;
  subject: string;
  /** The note's file name in that commit (it may have been renamed, or moved into the archive). */
  path?: string;
}

function noHistory(r: Run): [] | { skipped: string } {
  // A branch with no commits yet has no history.
  if (/does not have any commits|bad default revision|unknown revision/i.test(r.stderr)) return [];
  return { skipped: `git log failed: ${firstLine(r.stderr) || `exit ${r.code}`}` };
}

/**
 * The commits that touched `file` (following its renames, as git guesses them, and its move into
 * `.archive/`), or the whole corpus folder, newest first.
 */
export async function gitLog(dir: string, o: { file?: string; limit?: number } = {}): Promise<LogEntry[] | { skipped: string }> {
  const tree = await workTree(dir);
  if ('skipped' in tree) return tree;
  const format = '--format=%x1e%H%x1f%aI%x1f%an%x1f%s';
  const args = ['log', format, ...(o.limit ? [`--max-count=${o.limit}`] : [])];
  const r = o.file
    ? await git(dir, [...args, '--follow', '--name-only', '--', o.file])
    : await git(dir, [...args, '--', '.']);
  if (r.code !== 0) return noHistory(r);
  const realDir = o.file ? fs.realpathSync(dir) : dir;
  return r.stdout.split('\x1e').filter((c) => c.trim()).map((c) => {
    const [head, ...rest] = c.split('\n');
    const [sha, date, author, subject] = head.split('\x1f');
    const name = rest.map((l) => l.trim()).find(Boolean);
    return { sha, date, author, subject, ...(o.file && name ? { path: path.relative(realDir, path.join(tree.top, name)).split(path.sep).join('/') } : {}) };
  });
}
