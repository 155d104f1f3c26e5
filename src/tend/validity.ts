import { momentMs } from '../corpus/note/moments.js';
import { noteValidity, type NoteFacts } from '../corpus/graph/facts.js';
import type { Finding } from './check.js';
import type { CorpusMap } from './corpus-map.js';

// Validity no note can have (docs/format.md#time): a note that stops holding true before it
// starts, or a successor that holds true before the note it supersedes began. Reported as
// `impossible`; the notes are read as they are, and no repair changes them: a person decides
// which date is wrong.

const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();

/** When a note starts holding true: its valid_from, else its date, as written; undefined when it says neither. */
function start(n: NoteFacts): { text: string; ms: number; key: 'valid_from' | 'date' } | undefined {
  const v = noteValidity(n);
  const from = momentMs(v.valid_from);
  if (from !== undefined) return { text: v.valid_from!, ms: from, key: 'valid_from' };
  const date = momentMs(v.date);
  return date === undefined ? undefined : { text: v.date, ms: date, key: 'date' };
}

function impossible(n: NoteFacts, label: string, line: number, target: string, reason: string): Finding {
  return { file: n.path, line, label, target, uuid: n.uuid || null, verdict: 'impossible', reason };
}

/** A note whose valid_until is before its valid_from. */
function endsBeforeItStarts(n: NoteFacts): Finding | undefined {
  const v = noteValidity(n);
  const from = momentMs(v.valid_from);
  const until = momentMs(v.valid_until);
  if (from === undefined || until === undefined || until >= from) return undefined;
  return impossible(n, 'valid_until', v.lines.valid_until, v.valid_until!, `valid_until ${v.valid_until} is before valid_from ${v.valid_from}`);
}

/** A note superseded by a live note that starts holding true before it did. */
function successorStartsEarlier(n: NoteFacts, map: CorpusMap): Finding | undefined {
  if (!n.superseded_by) return undefined;
  const holders = map.holders(n.superseded_by);
  if (holders.length !== 1 || lower(holders[0].uuid) === lower(n.uuid)) return undefined;
  const next = holders[0];
  const was = start(n);
  const then = start(next);
  if (!was || !then || then.ms >= was.ms) return undefined;
  const line = then.key === 'valid_from' ? noteValidity(next).lines.valid_from : next.lines.supersedes;
  return impossible(
    next,
    then.key,
    line,
    then.text,
    `${next.path} holds true from ${then.text}, before ${n.path}, which it supersedes, began (${was.key} ${was.text})`,
  );
}

/** Every impossible validity in the live notes. */
export function impossibleValidity(notes: readonly NoteFacts[], map: CorpusMap): Finding[] {
  return notes.flatMap((n) => [endsBeforeItStarts(n), successorStartsEarlier(n, map)].filter((f): f is Finding => f !== undefined));
}
