import { EXIT, ZkError } from '../errors.js';
import { requireMoment } from '../api/vocabulary.js';
import { answer, backends, bool, int, kind, operation, schema, str, type OperationCall } from './operation.js';

// The operations that read the memory. Each loads its library module and view when it runs, so a
// command line that runs one loads only what that one needs.

/** A moment argument as given, checked: named in the message as the surface names it. */
const moment = (value: string | undefined, call: OperationCall) => (value === undefined ? undefined : requireMoment(value, call.argName('as_of')));

const DATE_HELP = 'the memory as it stood at the end of that day (YYYY-MM-DD, or a date-time)';

export const search = operation({
  name: 'search',
  description:
    'Search long-term memory. Pass a question or a few words in plain language; returns the best-matching notes with a snippet and a score each. Use before answering anything that may depend on what was learned earlier.',
  args: schema(
    {
      query: str('a question or keywords'),
      limit: int('how many notes at most (default 8)'),
      kind,
      history: bool('include notes whose content was superseded by newer ones'),
      backend: { type: 'string', enum: backends, description: 'search engine (default: the configured one)' },
      as_of: str('YYYY-MM-DD: the memory as it stood at the end of that day (what was believed then)'),
      valid_at: str('YYYY-MM-DD: only notes true on that day, superseded ones included (what was true then)'),
    },
    ['query'],
  ),
  readOnly: true,
  async run(root, a, call) {
    const api = await import('../api/search.js');
    const { searchText } = await import('../text/search.js');
    const o = { limit: a.limit, kind: a.kind, history: a.history, backend: a.backend, asOf: a.as_of, validAt: a.valid_at, progress: call.progress };
    const r = await api.search(root, a.query, o);
    return answer(r, searchText(r));
  },
  cli: {
    positionals: ['<query...>'],
    stdin: 'query',
    description: 'ranked notes for a question or some words (plain words: no character is syntax); "-" reads the query from stdin',
    options: {
      limit: { value: '<n>', help: 'how many hits at most (8)' },
      backend: { value: '<name>', help: 'auto | rg | fts | vector | hybrid (default: ZK_MEMORY_BACKEND, else auto)' },
      history: { help: 'include superseded notes' },
      kind: { value: '<kind>', help: 'only notes of this kind' },
      as_of: { value: '<date>', help: DATE_HELP },
      valid_at: { value: '<date>', help: 'only notes whose validity covers that day, superseded ones included' },
    },
    embed: true,
    progress: 'search',
    warnings: (r) => (r.fallback ? [`${r.fallback}; answered with ${r.backend}`] : []),
    // No hit is an answer, and a script tells it apart.
    exitCode: (r) => (r.hits.length ? EXIT.ok : EXIT.refused),
  },
});

export const context = operation({
  name: 'context',
  description:
    'The memory to keep in mind, cut to a token budget, as one text: with a query, the best-matching notes, the notes they link to and that link to them, and the current belief of any superseded one, most relevant first; without one, what a session starts with (the corpus in numbers, pinned notes, beliefs that changed lately, recent notes, what waits in the inbox). Each note is cited by file name and title, and marked cut when only its start fits: read it for the rest.',
  args: schema({
    query: str('what you are about to work on, in plain words; leave out for the start of a session'),
    budget: int('the most tokens the bundle may take (default 1000)'),
    hops: { type: 'integer', enum: [0, 1, 2], description: 'how many links away from a hit notes are brought in (default 1)' },
    as_of: str('YYYY-MM-DD: the memory as it stood at the end of that day'),
    backend: { type: 'string', enum: backends, description: 'search engine for the query (default: the configured one)' },
  }),
  readOnly: true,
  async run(root, a, call) {
    const api = await import('../api/context.js');
    const { contextText } = await import('../text/context.js');
    const r = await api.context(root, { query: a.query, budget: a.budget, hops: a.hops, asOf: moment(a.as_of, call), backend: a.backend });
    return answer(r, contextText(r));
  },
  cli: {
    positionals: ['[query...]'],
    description:
      'the memory an agent should see, cut to a token budget: for a query, its best notes and the notes linked to them; without one, the start of a session',
    options: {
      budget: { value: '<tokens>', help: 'the most tokens the bundle may take (1000)' },
      hops: { value: '<n>', help: 'how many links away from a hit notes are brought in: 0, 1 or 2 (1)' },
      as_of: { value: '<date>', help: DATE_HELP },
      backend: { value: '<name>', help: 'auto | rg | fts | vector | hybrid, for the query (default: ZK_MEMORY_BACKEND, else auto)' },
    },
  },
});

export const read = operation({
  name: 'read',
  description:
    "Read one note in full, with the titles of the notes it links to and the notes that link to it. ref is a uuid (or its first 8+ hex digits), a stem like 20261130-judy, a file name, an undated slug like judy, or the note's title as written. An unknown ref is answered with the notes it most likely meant (error.suggestions).",
  args: schema(
    {
      ref: str('the note: uuid, uuid prefix, stem, file name, undated slug or title'),
      as_of: str(
        'the note as it stood at the end of this day (YYYY-MM-DD) or at this moment (2026-10-01T09:30:00Z); an archived note can be read as of a date before its archive',
      ),
      timeline: bool(
        'instead of the note, the beliefs about its subject, oldest first: the notes it replaced and those that replaced it, each with when it was recorded, superseded and held true',
      ),
    },
    ['ref'],
  ),
  readOnly: true,
  async run(root, a, call) {
    const api = await import('../api/read.js');
    const view = await import('../text/notes.js');
    const asOf = moment(a.as_of, call);
    if (a.timeline) {
      if (asOf !== undefined) {
        throw new ZkError('usage', `${call.argName('timeline', true)} shows every belief with its dates: it takes no ${call.argName('as_of', true)}`);
      }
      const t = api.timeline(root, a.ref);
      return answer<object>(t, view.timelineText(t));
    }
    const links = call.switches.links !== false;
    const r = api.read(root, a.ref, { links, asOf });
    return answer(r, view.readText(r, { links }));
  },
  cli: {
    positionals: ['<ref>'],
    description: 'print a note and where its links lead (ref: uuid, uuid prefix, stem or file name)',
    options: {
      links: { flag: '--no-links', help: 'print the note only' },
      as_of: { value: '<date>', help: 'the note as it stood at the end of this day (YYYY-MM-DD) or at this moment' },
      timeline: { help: "the beliefs about the note's subject, oldest first: the notes it replaced and those that replaced it" },
    },
  },
});

export const list = operation({
  name: 'list',
  description: 'List notes (file-name order, or the most recently changed first with recent), a page at a time (limit, offset; total says how many there are).',
  args: schema({
    kind,
    recent: int('only the N most recently modified, newest first'),
    history: bool('include superseded notes'),
    limit: int('at most this many notes (default 50)'),
    offset: { type: 'integer', minimum: 0, description: 'skip this many notes first' },
    as_of: str('the notes held at the end of this day (YYYY-MM-DD) or at this moment, each as it stood then (archived ones too, if archived later)'),
  }),
  readOnly: true,
  async run(root, a, call) {
    const api = await import('../api/notes.js');
    const { listText } = await import('../text/notes.js');
    const r = api.list(root, { kind: a.kind, recent: a.recent, history: a.history, asOf: moment(a.as_of, call), limit: a.limit, offset: a.offset });
    return answer(r, listText(r));
  },
  // An agent reads a page at a time; the command line lists every note unless asked for a page.
  mcpDefaults: { limit: 50 },
  cli: {
    description: 'list notes in file-name order',
    options: {
      kind: { value: '<kind>', help: 'only notes of this kind' },
      recent: { value: '<n>', help: 'only the N most recently modified, newest first' },
      history: { help: 'include superseded notes' },
      as_of: { value: '<date>', help: 'the notes held at the end of this day (YYYY-MM-DD) or at this moment, as they stood then' },
      limit: { value: '<n>', help: 'at most N notes' },
      offset: { value: '<n>', help: 'skip the first N notes' },
    },
  },
});

export const log = operation({
  name: 'log',
  needsGit: true,
  description:
    'What happened to the memory, from git: the commits of the whole corpus, or of one note (following its uuid through renames and its move to the archive) with the notes that replaced it and its split family. Needs the corpus in a git repository.',
  args: schema({
    ref: str('a note (uuid, uuid prefix, stem, file name or undated slug); omit for the whole corpus'),
    limit: int('at most this many commits, newest first'),
  }),
  readOnly: true,
  async run(root, a) {
    const api = await import('../api/history.js');
    const { logText } = await import('../text/history.js');
    const r = await api.log(root, a.ref, { limit: a.limit });
    return answer(r, logText(r));
  },
  cli: {
    positionals: ['[ref]'],
    description:
      'the git history of the corpus, or of one note (following its uuid through renames and its move to .archive/), with its supersession chain and split family',
    options: { limit: { value: '<n>', help: 'at most this many commits, newest first' } },
  },
});
