/**
 * What an agent is told when it connects: how this memory is organised and how to use it well.
 * Each line that names tools is told only when the session offers every one of them (and none
 * named with `!`), so the instructions never promise a tool the agent cannot call (no LLM, no
 * git, a read-only token).
 */
const LINES: [needs: string[], text: string][] = [
  [[], 'zk-memory is a long-term memory kept as plain Markdown notes, one thought per note.\n'],
  [
    ['overview'],
    '- Start with overview: how many notes of which kind, what changed lately, whether anything waits in the inbox, whether an LLM is configured, whether the corpus is in git.',
  ],
  [
    ['search'],
    '- Before answering anything that may depend on what was learned earlier, call search with the question in plain words. Each hit has a snippet (the passage that best matches the query; of equally good ones, the latest merged update) and the date the note last changed.',
  ],
  [
    ['context'],
    '- context gives in one call, cut to a token budget, the notes to keep in mind: with a query, the best-matching notes and the notes linked to them; without one, what a session starts with (pinned notes, changed beliefs, recent notes, the inbox).',
  ],
  [
    [],
    '- Notes have a kind: concept (a durable idea), entity_update (a fact about a person, project or thing), decision (a choice made, with its alternatives and rationale).',
  ],
  [
    ['write'],
    '- Put the key fact in the title; keep one thought per note. write names a live note with a similar title in similar: merge into that one when it is the same subject.',
  ],
  [['merge'], '- To add to an existing note, merge a fragment into it (nothing is ever overwritten).'],
  [
    ['write', 'supersede'],
    '- When a fact changes, write the new note with supersedes (or call supersede): the old note stays as history and searches show the current one. To replace the note judy with a new version, write with slug judy and supersedes judy: the new note takes the next free name and the bare slug judy then names it.',
  ],
  [['archive'], '- A note written by mistake is retracted with archive (never deleted).'],
  [
    ['search', 'read'],
    '- History is kept: search with as_of (a day) answers with what the memory held then, with valid_at with what was true then; read and list take as_of, and read with timeline shows every belief about a subject with when it held true.',
  ],
  [
    ['read'],
    "- Refer to a note by its file name (e.g. 20261130-judy.md) when you cite it; read takes a file name, a stem, a uuid or its first 8 hex digits, an undated slug such as judy, or a note's title as written; an unknown ref is answered with the notes it most likely meant (error.suggestions).",
  ],
  [
    ['write'],
    '- To link one note to another, write a Markdown link to its file name: [Judy](20261130-judy.md). A link by slug or title ([Judy](judy), [Judy](<Judy Smith>)) is understood too.',
  ],
  [['tend_robustify'], '- tend_robustify rewrites links by slug or title into links to the file name.'],
  [
    ['integrate', 'retain'],
    "- integrate (a careful write: the server's LLM decides whether to append, replace or make a note) and retain (distill a conversation into notes) use the server's LLM; what it could not judge waits in the inbox.",
  ],
  [['write', 'merge', 'supersede', '!integrate'], '- This session has no LLM: keep memories yourself with write, merge and supersede.'],
  [
    ['inbox', 'inbox_next', 'inbox_done', 'write'],
    '- inbox lists what waits to be judged (captured sessions, memories no LLM judged yet). Keep it yourself: inbox_next takes the oldest input, write or merge what matters in your own words, then inbox_done (or inbox_skip when nothing is worth keeping).',
  ],
  [['log'], '- log shows what happened to the memory, or to one note, from git.'],
  [
    ['ingest_start', 'ingest_next', 'ingest_accept', 'ingest_skip'],
    '- To study documents: ingest_start, then ingest_next and ingest_accept or ingest_skip until ingest_next says done.',
  ],
];

/** The instructions for a session that offers the tools named in `offered`. */
export function instructionsFor(offered: Iterable<string>): string {
  const has = new Set(offered);
  const told = (needs: string[]) => needs.every((t) => (t.startsWith('!') ? !has.has(t.slice(1)) : has.has(t)));
  return LINES.filter(([needs]) => told(needs))
    .map(([, text]) => text)
    .join('\n');
}
