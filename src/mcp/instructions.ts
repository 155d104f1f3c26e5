/** What an agent is told when it connects: how this memory is organised and how to use it well. */
export const INSTRUCTIONS = `zk-memory is a long-term memory kept as plain Markdown notes, one thought per note.

- Start with overview: how many notes of which kind, what changed lately, whether anything waits in the inbox, whether an LLM is configured.
- Before answering anything that may depend on what was learned earlier, call search with the question in plain words. Each hit has a snippet (the passage that best matches the query; of equally good ones, the latest merged update) and the date the note last changed.
- Notes have a kind: concept (a durable idea), entity_update (a fact about a person, project or thing), decision (a choice made, with its alternatives and rationale).
- Put the key fact in the title; keep one thought per note.
- To add to an existing note, merge a fragment into it (nothing is ever overwritten). When a fact changes, write the new note with supersedes (or call supersede): the old note stays as history and searches show the current one. A note written by mistake is retracted with archive (never deleted).
- Refer to a note by its file name (e.g. 20261130-judy.md) when you cite it; read takes a file name, a stem, a uuid or its first 8 hex digits, an undated slug such as judy, or a note's title as written; an unknown ref is answered with the notes it most likely meant (error.suggestions).
- To link one note to another, write a Markdown link to its file name: [Judy](20261130-judy.md). A link by slug or title ([Judy](judy), [Judy](<Judy Smith>)) is understood too, and tend_robustify rewrites it into that form.
- integrate and retain are offered only when the server has an LLM; what an LLM could not judge waits in the inbox, which you can list and write up yourself.
- To study documents: ingest_start, then ingest_next and ingest_accept or ingest_skip until ingest_next says done.`;
