import type { InboxNextResult } from '../api/corpus.js';

/** An inbox input as an agent reads it to keep it by hand: what it holds, then what to do. */
export function inboxNextText(r: InboxNextResult): string {
  if (r.done) return 'done: nothing waits in the inbox';
  const head = `${r.file}${r.held ? ' (you still hold it from an earlier inbox_next)' : ''}: ${r.items.length} item(s) from ${r.source ?? 'an unnamed source'}, ${r.created}; ${r.remaining} other file(s) wait`;
  const items = r.items.map((it, i) => `--- item ${i + 1} (${it.type}${it.title ? `: ${it.title}` : ''})\n${it.text}`);
  const next = `Keep what matters for later sessions with write (a new note) or merge (into a note on the same subject), in your own words, one thought per note; leave out secrets and passing details. Then call inbox_done {"file":"${r.file}"}, or inbox_skip {"file":"${r.file}","reason":"…"} when nothing is worth keeping.`;
  return [head, ...items, '---', next].join('\n');
}
