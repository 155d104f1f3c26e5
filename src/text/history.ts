import type { LogResult } from '../api/history.js';
import type { NoteInfo } from '../corpus/note/notes.js';

const named = (n: NoteInfo) => `${n.path} (${n.title})`;

/** One line a commit (short sha, day, author, subject); for a note, its versions and split family after. */
export function logText(r: LogResult): string {
  const lines = r.commits.map(
    (c) => `${c.sha.slice(0, 10)} ${c.date.slice(0, 10)} ${c.author}  ${c.subject}${r.note && c.path && c.path !== r.note.path ? `  [${c.path}]` : ''}`,
  );
  if (!r.commits.length) lines.push(r.note ? `no commits touch ${r.note.path} yet` : 'no commits touch the corpus yet');
  if (!r.note) return lines.join('\n');
  if (r.replaces?.length) lines.push('', `replaces: ${r.replaces.map(named).join(', ')}`);
  if (r.chain?.length) lines.push('', `superseded by: ${r.chain.map(named).join(' -> ')}`);
  if (r.split?.parent) lines.push('', `split from: ${named(r.split.parent)}`);
  if (r.split?.children.length) lines.push('', `split into: ${r.split.children.map(named).join(', ')}`);
  return lines.join('\n');
}
