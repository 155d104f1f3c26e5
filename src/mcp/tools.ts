import type { FromSchema } from 'json-schema-to-ts';
import * as api from '../api/index.js';
import { ZkError } from '../errors.js';
import { requireMoment } from '../api/vocabulary.js';
import type { InputMessage } from '../judge/transcript.js';
import * as notesView from '../text/notes.js';
import * as searchView from '../text/search.js';
import { tendText } from '../text/tend.js';
import { contextText } from '../text/context.js';
import { logText } from '../text/history.js';
import * as judgedView from '../text/judged.js';
import { ingestTools } from './ingest-tools.js';
import { inboxTools } from './inbox-tools.js';
import { tendTools } from './tend-tools.js';
import { settings } from '../context.js';
import { serverText } from '../text/server.js';
import { bool, int, kindProperty, schema, str, tool, type ToolAnswer, type ToolSpec } from './tool.js';

export type { ToolAnswer, ToolSpec } from './tool.js';

const kind = kindProperty('concept (an idea), entity_update (a fact about a person, thing or project), decision (a choice made)');
const list = (description: string) => ({ type: 'array', items: { type: 'string' }, description }) as const;

const decisionProps = {
  choice: str('for a decision: what was chosen'),
  alternatives: list('for a decision: the alternatives considered'),
  rationale: str('for a decision: why'),
} as const;

/** retain's arguments: one conversation, given one of three ways (see `retainInput`). */
const retainSchema = schema({
  user: str('what the user said (with assistant)'),
  assistant: str('what the assistant answered (with user)'),
  messages: {
    type: 'array',
    items: { type: 'object', properties: { role: { type: 'string' }, content: {} }, required: ['role'] },
    description: 'chat messages [{role, content}]',
  },
  transcript: str('a plain-text transcript'),
  source: str('who it comes from'),
});

const answer = (r: object, text: string): ToolAnswer => ({ json: { ...r }, text });

export const TOOLS: ToolSpec[] = [
  tool({
    name: 'search',
    description:
      'Search long-term memory. Pass a question or a few words in plain language; returns the best-matching notes with a snippet and a score each. Use before answering anything that may depend on what was learned earlier.',
    inputSchema: schema(
      {
        query: str('a question or keywords'),
        limit: int('how many notes at most (default 8)'),
        kind,
        history: bool('include notes whose content was superseded by newer ones'),
        backend: { type: 'string', enum: ['auto', 'rg', 'fts', 'vector', 'hybrid'], description: 'search engine (default: the configured one)' },
        as_of: str('YYYY-MM-DD: the memory as it stood at the end of that day (what was believed then)'),
        valid_at: str('YYYY-MM-DD: only notes true on that day, superseded ones included (what was true then)'),
      },
      ['query'],
    ),
    readOnly: true,
    async run(root, a) {
      const r = await api.search(root, a.query, { limit: a.limit, kind: a.kind, history: a.history, backend: a.backend, asOf: a.as_of, validAt: a.valid_at });
      return answer(r, searchView.searchText(r));
    },
  }),
  tool({
    name: 'context',
    description:
      'The memory to keep in mind, cut to a token budget, as one text: with a query, the best-matching notes, the notes they link to and that link to them, and the current belief of any superseded one, most relevant first; without one, what a session starts with (the corpus in numbers, pinned notes, beliefs that changed lately, recent notes, what waits in the inbox). Each note is cited by file name and title, and marked cut when only its start fits: read it for the rest.',
    inputSchema: schema({
      query: str('what you are about to work on, in plain words; leave out for the start of a session'),
      budget: int('the most tokens the bundle may take (default 1000)'),
      hops: { type: 'integer', enum: [0, 1, 2], description: 'how many links away from a hit notes are brought in (default 1)' },
      as_of: str('YYYY-MM-DD: the memory as it stood at the end of that day'),
      backend: { type: 'string', enum: ['auto', 'rg', 'fts', 'vector', 'hybrid'], description: 'search engine for the query (default: the configured one)' },
    }),
    readOnly: true,
    async run(root, a) {
      const asOf = a.as_of === undefined ? undefined : requireMoment(String(a.as_of), 'as_of');
      const r = await api.context(root, { query: a.query, budget: a.budget, hops: a.hops, asOf, backend: a.backend });
      return answer(r, contextText(r));
    },
  }),
  tool({
    name: 'read',
    description:
      "Read one note in full, with the titles of the notes it links to and the notes that link to it. ref is a uuid (or its first 8+ hex digits), a stem like 20261130-judy, a file name, an undated slug like judy, or the note's title as written. An unknown ref is answered with the notes it most likely meant (error.suggestions).",
    inputSchema: schema(
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
    async run(root, a) {
      const asOf = a.as_of === undefined ? undefined : requireMoment(String(a.as_of), 'as_of');
      if (a.timeline) {
        if (asOf !== undefined) throw new ZkError('usage', '"timeline" shows every belief with its dates: it takes no "as_of"');
        const t = api.timeline(root, a.ref);
        return answer(t, notesView.timelineText(t));
      }
      const r = api.read(root, a.ref, { asOf });
      return answer(r, notesView.readText(r));
    },
  }),
  tool({
    name: 'list',
    description:
      'List notes (file-name order, or the most recently changed first with recent), a page at a time (limit, offset; total says how many there are).',
    inputSchema: schema({
      kind,
      recent: int('only the N most recently modified, newest first'),
      history: bool('include superseded notes'),
      limit: int('at most this many notes (default 50)'),
      offset: { type: 'integer', minimum: 0, description: 'skip this many notes first' },
      as_of: str('the notes held at the end of this day (YYYY-MM-DD) or at this moment, each as it stood then (archived ones too, if archived later)'),
    }),
    readOnly: true,
    async run(root, a) {
      const asOf = a.as_of === undefined ? undefined : requireMoment(String(a.as_of), 'as_of');
      const r = api.list(root, { kind: a.kind, recent: a.recent, history: a.history, asOf, limit: a.limit ?? 50, offset: a.offset });
      return answer(r, notesView.listText(r));
    },
  }),
  tool({
    name: 'write',
    redacts: true,
    description:
      "Create a new note with one thought; put the key fact in the title. Refused if a note with that slug exists (merge into it instead, or set unique). To replace a fact that changed, pass supersedes with the old note. To replace the note X with a new version, write with slug X and supersedes X: the new note takes the next free name (X-2) and the bare slug X then names it. A live note with a title like the new one's is named in similar.",
    inputSchema: schema(
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
        ...decisionProps,
      },
      ['slug', 'title'],
    ),
    async run(root, a) {
      const r = await api.write(root, {
        slug: a.slug,
        title: a.title,
        body: a.body,
        kind: a.kind,
        source: a.source,
        date: a.date,
        unique: a.unique,
        supersedes: a.supersedes,
        validFrom: a.valid_from,
        validUntil: a.valid_until,
        choice: a.choice,
        alternatives: a.alternatives,
        rationale: a.rationale,
      });
      return answer(r, [notesView.writeText(r), ...notesView.similarLines(r).map((l) => `note: ${l}`)].join('\n'));
    },
  }),
  tool({
    name: 'merge',
    redacts: true,
    description: 'Append a dated paragraph to an existing note (nothing in it is changed or removed).',
    inputSchema: schema({ ref: str('the note to append to'), fragment: str('the text to append'), source: str('who adds it') }, ['ref', 'fragment']),
    async run(root, a) {
      const r = await api.merge(root, a.ref, a.fragment, { source: a.source });
      return answer(r, notesView.mergeText(r));
    },
  }),
  tool({
    name: 'integrate',
    redacts: true,
    needsLlm: true,
    description:
      'Careful write: finds notes on the topic and lets the configured LLM decide whether the memory is appended to one, replaces (supersedes) one, or becomes a new note. Decisions always become notes of their own.',
    inputSchema: schema(
      {
        content: str('the memory, self-contained, in a sentence or a short paragraph'),
        topic: str('what it is about in a few words (used to find existing notes)'),
        kind,
        title: str('title if a new note is made'),
        slug: str('slug if a new note is made'),
        source: str('who it comes from'),
        ...decisionProps,
      },
      ['content'],
    ),
    async run(root, a) {
      const r = await api.integrate(root, {
        content: a.content,
        topic: a.topic,
        kind: a.kind,
        title: a.title,
        slug: a.slug,
        source: a.source,
        choice: a.choice,
        alternatives: a.alternatives,
        rationale: a.rationale,
      });
      return answer(r, judgedView.integrateText(r));
    },
  }),
  tool({
    name: 'retain',
    redacts: true,
    needsLlm: true,
    description:
      'Distill a conversation into notes with the configured LLM: pass one exchange (user and assistant), chat messages, or a transcript. Only what the user and assistant said counts; nothing worth keeping is a valid outcome. If the LLM fails the input is kept for a later retry.',
    inputSchema: retainSchema,
    async run(root, a) {
      const input = retainInput(a);
      const r = await api.retain(root, { input, source: a.source });
      const text = [judgedView.retainText(r), r.error && `error: ${r.error.message}`].filter(Boolean).join('\n');
      return { json: { ...r, ...(r.error ? { ok: false } : {}) }, text, failed: Boolean(r.error) };
    },
  }),
  tool({
    name: 'supersede',
    description: 'Mark a note as no longer true because another note replaced it. Both stay; searches then show only the current one.',
    inputSchema: schema(
      {
        old: str('the note that is no longer true'),
        by: str('the note that replaces it'),
        valid_from: str('since when the new note holds true, YYYY-MM-DD or a date-time, when that is known ("since October")'),
      },
      ['old', 'by'],
    ),
    async run(root, a) {
      const r = await api.supersede(root, a.old, a.by, { validFrom: a.valid_from });
      return answer(r, notesView.supersedeText(r));
    },
  }),
  tool({
    name: 'overview',
    description:
      'How this memory stands: notes by kind, the most recently changed, the inbox, whether an LLM and embeddings are configured, the search backend, whether the corpus is in git, the resident server. Call it first in a session.',
    inputSchema: schema({ recent: int('how many recently changed notes to show (default 5)') }),
    readOnly: true,
    async run(root, a, _caller, session) {
      const r = { ...(await api.overview(root, { recent: a.recent })), server: await session.serverStatus(root, settings()) };
      return answer(r, `${notesView.overviewText(r)}\n${serverText(r.server)}`);
    },
  }),
  tool({
    name: 'archive',
    description:
      'Retract a note written by mistake: it moves to .archive/ with the reason traced (never deleted; a person can move it back). For a fact that changed, supersede instead.',
    // Its reason goes into the trace: redacted under ZK_MEMORY_REDACT, as what is written is.
    redacts: true,
    inputSchema: schema({ ref: str('the note to retract'), reason: str('why it is retracted') }, ['ref']),
    async run(root, a) {
      const r = await api.archive(root, a.ref, { reason: a.reason });
      return answer(r, notesView.archiveText(r));
    },
  }),
  tool({
    name: 'inbox',
    description:
      'Memories that could not be judged yet (no LLM, or it failed). action list (default) shows them; drain retries them with the LLM (only when this session has one); dismiss sets one file aside after you wrote its memories yourself with write or merge.',
    inputSchema: schema({
      action: { type: 'string', enum: ['list', 'drain', 'dismiss'], description: 'list (default), drain or dismiss' },
      file: str('for dismiss: the file as list shows it'),
    }),
    async run(root, a) {
      if (a.action === 'drain') {
        const r = await api.retainDrain(root);
        return { json: { ...r }, text: judgedView.drainText(r), failed: r.kept > 0 };
      }
      if (a.action === 'dismiss') {
        if (!a.file) throw new ZkError('usage', 'dismiss needs the file that list shows');
        const r = api.inboxDismiss(root, a.file);
        return answer(r, notesView.inboxDismissText(r));
      }
      const r = api.inbox(root);
      return answer(r, notesView.inboxText(r));
    },
  }),
  tool({
    name: 'log',
    needsGit: true,
    description:
      'What happened to the memory, from git: the commits of the whole corpus, or of one note (following its uuid through renames and its move to the archive) with the notes that replaced it and its split family. Needs the corpus in a git repository.',
    inputSchema: schema({
      ref: str('a note (uuid, uuid prefix, stem, file name or undated slug); omit for the whole corpus'),
      limit: int('at most this many commits, newest first'),
    }),
    readOnly: true,
    async run(root, a) {
      const r = await api.log(root, a.ref, { limit: a.limit });
      return answer(r, logText(r));
    },
  }),
  ...inboxTools,
  ...ingestTools,
  tool({
    name: 'tend_check',
    description:
      'Check every link between notes: ok, stale (target renamed, fixable), broken, or unanchored. Also reports a fork (a note superseded by two notes that are both current: a person decides which belief holds) and same_slug (an undated slug several current notes bear; refs name the newest). Reports file and line for each problem.',
    inputSchema: schema({ strict: bool('also count links without a uuid anchor as problems') }),
    readOnly: true,
    async run(root, a) {
      const r = await api.tend(root, 'check', { strict: a.strict });
      const { strict, ...json } = r;
      return { json, text: tendText(r) };
    },
  }),
  ...tendTools,
];

/** Exactly one way to give retain its conversation. */
function retainInput(a: FromSchema<typeof retainSchema>): api.RetainRequestInput {
  const given = (['messages', 'transcript', 'user'] as const).filter((k) => a[k] !== undefined);
  if (a.messages !== undefined && given.length === 1) return { messages: a.messages as InputMessage[] };
  if (a.transcript !== undefined && given.length === 1) return { transcript: a.transcript };
  if (a.user !== undefined && a.assistant !== undefined && given.length === 1) return { user: a.user, assistant: a.assistant };
  throw new ZkError('usage', 'retain takes one input: user and assistant, messages, or transcript');
}
