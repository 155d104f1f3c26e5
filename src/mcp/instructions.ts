/** What an agent is told when it connects: how this memory is organised and how to use it well. */
export const INSTRUCTIONS = `zk-memory is a long-term memory kept as plain Markdown notes, one thought per note.

- Before answering anything that may depend on what was learned earlier, call search with the question in plain words.
- Notes have a kind: concept (a durable idea), entity_update (a fact about a person, project or thing), decision (a choice made, with its alternatives and rationale).
- Put the key fact in the title; keep one thought per note.
- To add to an existing note, merge a fragment into it (nothing is ever overwritten). When a fact changes, write the new note with supersedes (or call supersede): the old note stays as history and searches show the current one.
- Refer to a note by its file name (e.g. 20261130-judy.md) when you cite it; read takes a file name, a stem, a uuid or its first 8 hex digits, or an undated slug such as judy.
- integrate and retain need an LLM configured on the server; without one their input is kept in the inbox for later.`;
