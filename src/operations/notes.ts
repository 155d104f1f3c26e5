import { answer, bool, kind, list, operation, schema, str } from './operation.js';

// The operations that write notes. Each loads its library module and view when it runs.

export const decisionArgs = {
  choice: str('for a decision: what was chosen'),
  alternatives: list('for a decision: the alternatives considered'),
  rationale: str('for a decision: why'),
} as const;

/** The command line's options of a decision's parts (see `decisionArgs`). */
const decisionOptions = {
  choice: { value: '<text>', help: 'for a decision: what was chosen' },
  alternatives: { value: '<text>', help: 'for a decision: an alternative considered (repeatable)' },
  rationale: { value: '<text>', help: 'for a decision: why' },
} as const;

export const write = operation({
  name: 'write',
  redacts: true,
  description:
    "Create a new note with one thought; put the key fact in the title. Refused if a note with that slug exists (merge into it instead, or set unique). To replace a fact that changed, pass supersedes with the old note. To replace the note X with a new version, write with slug X and supersedes X: the new note takes the next free name (X-2) and the bare slug X then names it. A live note with a title like the new one's is named in similar.",
  args: schema(
    {
      slug: str('a few words for the file name, e.g. "judy"'),
      title: str('the note title'),
      body: str('the note text, in Markdown'),
      kind,
      source: str('who writes it (agent or host name)'),
      unique: bool('take the next free name instead of refusing'),
      supersedes: str('ref of a note this one replaces (it is kept, marked superseded)'),
      date: str('the date the fact dates from, YYYY-MM-DD (default: today); it names the file'),
      valid_from: str('since when what it says holds true, YYYY-MM-DD or a date-time, when that is known (default: its date)'),
      valid_until: str('until when it holds true, when that is known (default: until a note superseding it holds true)'),
      ...decisionArgs,
    },
    ['slug', 'title'],
  ),
  async run(root, a) {
    const api = await import('../api/notes.js');
    const view = await import('../text/notes.js');
    const { valid_from: validFrom, valid_until: validUntil, ...rest } = a;
    const r = await api.write(root, { ...rest, validFrom, validUntil });
    // The similar notes are said beside the new note's path, which scripts read.
    return { json: r, text: view.writeText(r), remarks: view.similarLines(r) };
  },
  cli: {
    positionals: ['<slug>', '<title>', '[body]'],
    stdin: 'body',
    description: 'create a note (refused if the name exists); body from the argument or stdin ("-")',
    options: {
      kind: { value: '<kind>', help: 'concept | entity_update | decision' },
      source: { value: '<name>', help: 'who writes (default: ZK_MEMORY_SOURCE); stored as author' },
      date: { value: '<YYYY-MM-DD>', help: 'date of the note (default: today)' },
      unique: { help: 'take the next free name (-2, -3, ...) instead of refusing' },
      ...decisionOptions,
      supersedes: { value: '<ref>', help: 'the new note replaces this one (which is kept, marked superseded)' },
      valid_from: { value: '<date>', help: 'what the note says holds true from this day or date-time (default: its date)' },
      valid_until: { value: '<date>', help: 'and until this one (default: until a successor holds true)' },
    },
    commit: true,
  },
});

export const merge = operation({
  name: 'merge',
  redacts: true,
  description: 'Append a dated paragraph to an existing note (nothing in it is changed or removed).',
  args: schema({ ref: str('the note to append to'), fragment: str('the text to append'), source: str('who adds it') }, ['ref', 'fragment']),
  async run(root, a) {
    const api = await import('../api/notes.js');
    const { mergeText } = await import('../text/notes.js');
    const r = await api.merge(root, a.ref, a.fragment, { source: a.source });
    return answer(r, mergeText(r));
  },
  cli: {
    positionals: ['<ref>', '[fragment]'],
    stdin: 'fragment',
    description: 'append a dated fragment to a note (append-only); fragment from the argument or stdin ("-")',
    options: { source: { value: '<name>', help: 'who adds it (default: ZK_MEMORY_SOURCE)' } },
    commit: true,
  },
});

export const supersede = operation({
  name: 'supersede',
  description: 'Mark a note as no longer true because another note replaced it. Both stay; searches then show only the current one.',
  args: schema(
    {
      old: str('the note that is no longer true'),
      by: str('the note that replaces it'),
      valid_from: str('since when the new note holds true, YYYY-MM-DD or a date-time, when that is known ("since October")'),
    },
    ['old', 'by'],
  ),
  async run(root, a) {
    const api = await import('../api/notes.js');
    const { supersedeText } = await import('../text/notes.js');
    const r = await api.supersede(root, a.old, a.by, { validFrom: a.valid_from });
    return answer(r, supersedeText(r));
  },
  cli: {
    positionals: ['<old>'],
    description: 'mark OLD as superseded by NEW: both notes stay, searches show only the current one',
    options: {
      by: { value: '<new>', help: 'the note that replaces OLD (required)', missing: 'supersede needs --by NEW: the note that replaces OLD' },
      valid_from: { value: '<date>', help: 'NEW holds true from this day or date-time (written on NEW)' },
    },
    commit: true,
  },
});

export const archive = operation({
  name: 'archive',
  description:
    'Retract a note written by mistake: it moves to .archive/ with the reason traced (never deleted; a person can move it back). For a fact that changed, supersede instead.',
  // Its reason goes into the trace: redacted under ZK_MEMORY_REDACT, as what is written is.
  redacts: true,
  args: schema({ ref: str('the note to retract'), reason: str('why it is retracted') }, ['ref']),
  async run(root, a) {
    const api = await import('../api/corpus.js');
    const { archiveText } = await import('../text/notes.js');
    const r = await api.archive(root, a.ref, { reason: a.reason });
    return answer(r, archiveText(r));
  },
  cli: {
    positionals: ['<ref>'],
    description: 'retract a note: move it to .archive/ (never deleted; move it back to undo)',
    options: { reason: { value: '<why>', help: 'why it is retracted (kept in the trace)' } },
    commit: true,
  },
});

export const integrate = operation({
  name: 'integrate',
  redacts: true,
  needsLlm: true,
  description:
    'Careful write: finds notes on the topic and lets the configured LLM decide whether the memory is appended to one, replaces (supersedes) one, or becomes a new note. Decisions always become notes of their own.',
  args: schema(
    {
      content: str('the memory, self-contained, in a sentence or a short paragraph'),
      topic: str('what it is about in a few words (used to find existing notes)'),
      kind,
      title: str('title if a new note is made'),
      slug: str('slug if a new note is made'),
      source: str('who it comes from'),
      ...decisionArgs,
    },
    ['content'],
  ),
  async run(root, a, call) {
    const api = await import('../api/judged.js');
    const { integrateText } = await import('../text/judged.js');
    // The backend the candidates are searched with is the command line's own choice; MCP takes the configured one.
    const backend = typeof call.switches.backend === 'string' ? call.switches.backend : undefined;
    const r = await api.integrate(root, { ...a, backend });
    return answer(r, integrateText(r));
  },
  cli: {
    positionals: ['[content]'],
    stdin: 'content',
    description: 'careful write: merge into the note it belongs to, supersede one, or create (an LLM judges)',
    options: {
      topic: { value: '<text>', help: 'what the memory is about (searched for an existing note; default: title or first line)' },
      kind: { value: '<kind>', help: 'concept | entity_update | decision (a decision is always a note of its own)' },
      title: { value: '<text>', help: 'title if a note is created' },
      slug: { value: '<slug>', help: 'slug if a note is created' },
      ...decisionOptions,
      source: { value: '<name>', help: 'who it comes from (default: ZK_MEMORY_SOURCE)' },
      backend: { flag: '--backend <name>', help: 'search backend used to find candidates' },
    },
    llm: true,
    commit: true,
  },
});
