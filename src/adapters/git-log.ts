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

/** A commit as `git log --name-status -z` prints it with FORMAT: who and why, and what it did to each file. */
interface LoggedCommit extends LogEntry {
  parent?: string;
  files: { status: string; path: string }[];
}

const FORMAT = '--format=%x1e%H%x1f%P%x1f%aI%x1f%an%x1f%s';

/** The note files of a corpus, as patterns: top-level notes and the archive's. */
const NOTE_FILES = [':(glob)*.md', ':(glob).archive/*.md'];

function parseLog(out: string): LoggedCommit[] {
  return out
    .split('\x1e')
    .filter((c) => c.trim())
    .map((c) => {
      const end = c.indexOf('\0');
      const [sha, parents, date, author, subject] = (end < 0 ? c : c.slice(0, end)).trim().split('\x1f');
      const fields =
        end < 0
          ? []
          : c
              .slice(end + 1)
              .replace(/^\n/, '')
              .split('\0');
      const files: LoggedCommit['files'] = [];
      for (let i = 0; i + 1 < fields.length; i += 2) files.push({ status: fields[i], path: fields[i + 1] });
      return { sha, date, author, subject, parent: parents.split(' ')[0] || undefined, files };
    });
}

/** `git log` with FORMAT and the files, or why there is no history to read (none at all on a branch without commits). */
async function logged(dir: string, args: string[], o: { patterns?: boolean } = {}): Promise<LoggedCommit[] | { skipped: string }> {
  const r = await git(dir, ['log', FORMAT, '--relative', '--no-renames', '--name-status', '-z', ...args], undefined, o);
  if (r.code === 0) return parseLog(r.stdout);
  return noHistory(r);
}

function noHistory(r: Run): [] | { skipped: string } {
  // A branch with no commits yet has no history.
  if (/does not have any commits|bad default revision|unknown revision/i.test(r.stderr)) return [];
  return { skipped: `git log failed: ${firstLine(r.stderr) || `exit ${r.code}`}` };
}

/** Which of `revs` hold a line matching `line` in which of `files`: `rev:file` for each. */
async function holding(dir: string, line: string, revs: string[], files: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  // A few revisions a call, to keep the command line short.
  for (let i = 0; i < revs.length; i += 100) {
    const r = await git(dir, ['grep', '-l', '-z', '-E', '-e', line, ...revs.slice(i, i + 100), '--', ...files]);
    for (const name of r.stdout.split('\0').filter(Boolean)) found.add(name);
  }
  return found;
}

/**
 * The commits in which a note file held a line matching `line` (an extended regular expression),
 * before or after the commit, newest first, each with the name of that file then: the history of
 * whatever the line names (a note's uuid), through renames and moves into the archive, and not
 * of another note that had one of its file names before or after.
 */
export async function gitLogHolding(dir: string, line: string, o: { limit?: number } = {}): Promise<LogEntry[] | { skipped: string }> {
  const tree = await workTree(dir);
  if ('skipped' in tree) return tree;
  // The files that ever gained or lost such a line: the only ones that may have held it.
  const gained = await logged(dir, [`-G${line}`, '--', ...NOTE_FILES], { patterns: true });
  if (!Array.isArray(gained)) return gained;
  const files = [...new Set(gained.flatMap((c) => c.files.map((f) => f.path)))].sort();
  if (!files.length) return [];
  const commits = await logged(dir, ['--', ...files]);
  if (!Array.isArray(commits)) return commits;
  const revs = new Set<string>();
  for (const c of commits) {
    revs.add(c.sha);
    if (c.parent) revs.add(c.parent);
  }
  const held = await holding(dir, line, [...revs], files);
  const out: LogEntry[] = [];
  for (const c of commits) {
    const after = c.files.find((f) => f.status !== 'D' && held.has(`${c.sha}:${f.path}`));
    const before = c.files.find((f) => c.parent && f.status !== 'A' && held.has(`${c.parent}:${f.path}`));
    const file = after ?? before;
    if (file) out.push({ sha: c.sha, date: c.date, author: c.author, subject: c.subject, path: file.path });
  }
  return o.limit ? out.slice(0, o.limit) : out;
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
  const r = o.file ? await git(dir, [...args, '--follow', '--name-only', '--', o.file]) : await git(dir, [...args, '--', '.']);
  if (r.code !== 0) return noHistory(r);
  const realDir = o.file ? fs.realpathSync(dir) : dir;
  return r.stdout
    .split('\x1e')
    .filter((c) => c.trim())
    .map((c) => {
      const [head, ...rest] = c.split('\n');
      const [sha, date, author, subject] = head.split('\x1f');
      const name = rest.map((l) => l.trim()).find(Boolean);
      return { sha, date, author, subject, ...(o.file && name ? { path: path.relative(realDir, path.join(tree.top, name)).split(path.sep).join('/') } : {}) };
    });
}
