import path from 'node:path';
import { current, settings, withContext, type WrittenFile } from '../context.js';
import { isNoteName } from '../corpus/files/note-files.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { relToRoot } from '../corpus/files/paths.js';
import { warn } from '../corpus/warn.js';
import type { CommitMessage, TitleOf } from './commit-message.js';

import type { CommitOutcome } from '../ports.js';

export type { CommitOutcome } from '../ports.js';

/** The trace: shared by every call, so a commit takes the call's own lines of it, not the whole file. */
const TRACE = '.zk/trace.jsonl';

/** The files of a corpus git should keep: notes, the archive, the trace and the sidecar's ignore file. */
function versioned(rel: string): boolean {
  if (!rel.includes('/')) return isNoteName(rel);
  return rel.startsWith('.archive/') || rel === TRACE || rel === '.zk/.gitignore';
}

/** The versioned files (relative to the root) a call wrote, created, changed or moved away. */
function touchedPaths(root: string, changes: WrittenFile[]): string[] {
  const out = new Set<string>();
  for (const c of changes) {
    for (const p of c.to ? [c.path, c.to] : [c.path]) {
      const rel = relToRoot(root, p);
      if (!rel.startsWith('..') && !path.isAbsolute(rel) && versioned(rel)) out.add(rel);
    }
  }
  return [...out].sort();
}

/** The lines the call appended to the trace, for a commit of those alone. */
function ownTraceLines(root: string, changes: WrittenFile[]): Record<string, string> {
  const text = changes
    .filter((c) => c.text !== undefined && relToRoot(root, c.path) === TRACE)
    .map((c) => c.text)
    .join('');
  return text ? { [TRACE]: text } : {};
}

/** Titles of notes named in a result: live ones as they are now, archived ones where this call put them. */
function titleFinder(root: string, changes: WrittenFile[]): TitleOf {
  return (rel) => {
    if (!rel.endsWith('.md')) return undefined;
    const live = readNoteFile(root, rel);
    if (live) return live.title;
    const moved = changes.find((c) => c.to && path.relative(root, c.path) === rel);
    return moved?.to ? readNoteFile(path.dirname(moved.to), path.basename(moved.to))?.title : undefined;
  };
}

function messageText(m: CommitMessage): string {
  const subject = m.subject.replace(/\s+/g, ' ').trim();
  const lines = (m.lines ?? []).map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean);
  return lines.length ? `${subject}\n\n${lines.map((l) => `- ${l}`).join('\n')}\n` : `${subject}\n`;
}

/**
 * Run a write, and when the call asks for commits (`--commit`, ZK_MEMORY_GIT_COMMIT), commit the
 * files it touched and nothing else (of the trace, only its own lines), with the message `describe` makes of its result. The write's
 * result stands whatever git says: a commit that cannot be made is skipped with a warning, and
 * the result says why in `commit`.
 */
export async function committing<T extends object>(
  root: string,
  run: () => Promise<T>,
  describe: (r: T, titleOf: TitleOf) => CommitMessage,
): Promise<T & { commit?: CommitOutcome }> {
  // A write inside another committing write is part of the outer one's commit.
  if (!settings().gitCommit() || current().changes) return run();
  const changes: WrittenFile[] = [];
  const ctx = current();
  const result = await withContext({ ...ctx, changes: { record: (c) => void changes.push(c) } }, run);
  const paths = touchedPaths(root, changes);
  if (!paths.length) return { ...result, commit: { skipped: 'nothing changed' } };
  // A context built without the git port (a program's own) has no way to commit: said as git's refusals are.
  const message = messageText(describe(result, titleFinder(root, changes)));
  const commit: CommitOutcome = ctx.commit
    ? await ctx.commit(root, paths, message, { ownLines: ownTraceLines(root, changes) })
    : { skipped: 'no git adapter in this call' };
  if ('skipped' in commit) warn(`not committed to git: ${commit.skipped}`);
  else for (const w of commit.warnings ?? []) warn(w);
  return { ...result, commit };
}
