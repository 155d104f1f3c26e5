import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Args = Record<string, unknown>;

/** An MCP tool: what an agent is told, what it may pass, and the command line it stands for. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The zk-memory arguments for a call (flags after the command name). */
  argv(args: Args, scratch: Scratch): string[];
}

/** Temporary files for inputs the command line takes as files (chat messages, transcripts). */
export class Scratch {
  private files: string[] = [];
  file(text: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zk-mcp-'));
    const file = path.join(dir, 'input');
    fs.writeFileSync(file, text);
    this.files.push(dir);
    return file;
  }
  cleanup(): void {
    for (const d of this.files) fs.rmSync(d, { recursive: true, force: true });
    this.files = [];
  }
}

const str = (description: string) => ({ type: 'string', description });
const bool = (description: string) => ({ type: 'boolean', description });
const int = (description: string) => ({ type: 'integer', minimum: 1, description });
const kind = { type: 'string', enum: ['concept', 'entity_update', 'decision'], description: 'concept (an idea), entity_update (a fact about a person, thing or project), decision (a choice made)' };
const list = (description: string) => ({ type: 'array', items: { type: 'string' }, description });

function schema(properties: Record<string, unknown>, required: string[] = []) {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** `--flag value` for each given option, `--flag` for true booleans; list options repeat. */
function flags(args: Args, names: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [key, flag] of Object.entries(names)) {
    const v = args[key];
    if (v === undefined || v === null || v === false) continue;
    if (v === true) out.push(flag);
    else if (Array.isArray(v)) for (const item of v) out.push(flag, String(item));
    else out.push(flag, String(v));
  }
  return out;
}

const decisionFlags = { choice: '--choice', alternatives: '--alternatives', rationale: '--rationale' };
const decisionProps = {
  choice: str('for a decision: what was chosen'),
  alternatives: list('for a decision: the alternatives considered'),
  rationale: str('for a decision: why'),
};

export const TOOLS: ToolSpec[] = [
  {
    name: 'search',
    description: 'Search long-term memory. Pass a question or a few words in plain language; returns the best-matching notes with a snippet each. Use before answering anything that may depend on what was learned earlier.',
    inputSchema: schema({
      query: str('a question or keywords'),
      limit: int('how many notes at most (default 8)'),
      history: bool('include notes whose content was superseded by newer ones'),
      backend: { type: 'string', enum: ['auto', 'rg', 'fts', 'vector', 'hybrid'], description: 'search engine (default: the configured one)' },
    }, ['query']),
    argv: (a) => ['search', String(a.query), ...flags(a, { limit: '--limit', history: '--history', backend: '--backend' })],
  },
  {
    name: 'read',
    description: 'Read one note in full, with the titles of the notes it links to. ref is a uuid (or its first 8+ hex digits), a stem like 20261130-judy, or a file name.',
    inputSchema: schema({ ref: str('the note: uuid, uuid prefix, stem or file name') }, ['ref']),
    argv: (a) => ['read', String(a.ref)],
  },
  {
    name: 'list',
    description: 'List notes (file-name order), optionally only one kind or the most recently changed.',
    inputSchema: schema({ kind, recent: int('only the N most recently modified, newest first'), history: bool('include superseded notes') }),
    argv: (a) => ['list', ...flags(a, { kind: '--kind', recent: '--recent', history: '--history' })],
  },
  {
    name: 'write',
    description: 'Create a new note with one thought. Refused if a note of that name exists today (set unique to take the next free name). Prefer integrate when the memory may belong in an existing note.',
    inputSchema: schema({
      slug: str('a few words for the file name, e.g. "judy"'),
      title: str('the note title'),
      body: str('the note text, in Markdown'),
      kind,
      source: str('who writes it (agent or host name)'),
      unique: bool('take the next free name instead of refusing'),
      supersedes: str('ref of a note this one replaces (it is kept, marked superseded)'),
      ...decisionProps,
    }, ['slug', 'title']),
    argv: (a) => ['write', String(a.slug), String(a.title), String(a.body ?? ''), ...flags(a, { kind: '--kind', source: '--source', unique: '--unique', supersedes: '--supersedes', ...decisionFlags })],
  },
  {
    name: 'merge',
    description: 'Append a dated paragraph to an existing note (nothing in it is changed or removed).',
    inputSchema: schema({ ref: str('the note to append to'), fragment: str('the text to append'), source: str('who adds it') }, ['ref', 'fragment']),
    argv: (a) => ['merge', String(a.ref), String(a.fragment), ...flags(a, { source: '--source' })],
  },
  {
    name: 'integrate',
    description: 'Careful write: finds notes on the topic and lets the configured LLM decide whether the memory is appended to one, replaces (supersedes) one, or becomes a new note. Decisions always become notes of their own.',
    inputSchema: schema({
      content: str('the memory, self-contained, in a sentence or a short paragraph'),
      topic: str('what it is about in a few words (used to find existing notes)'),
      kind,
      title: str('title if a new note is made'),
      slug: str('slug if a new note is made'),
      source: str('who it comes from'),
      ...decisionProps,
    }, ['content']),
    argv: (a) => ['integrate', String(a.content), ...flags(a, { topic: '--topic', kind: '--kind', title: '--title', slug: '--slug', source: '--source', ...decisionFlags })],
  },
  {
    name: 'retain',
    description: 'Distill a conversation into notes with the configured LLM: pass one exchange (user and assistant), chat messages, or a transcript. Only what the user and assistant said counts; nothing worth keeping is a valid outcome. If the LLM fails the input is kept for a later retry.',
    inputSchema: schema({
      user: str('what the user said (with assistant)'),
      assistant: str('what the assistant answered (with user)'),
      messages: { type: 'array', items: { type: 'object', properties: { role: { type: 'string' }, content: {} }, required: ['role'] }, description: 'chat messages [{role, content}]' },
      transcript: str('a plain-text transcript'),
      source: str('who it comes from'),
    }),
    argv: (a, scratch) => {
      const input = a.messages !== undefined
        ? ['--messages', scratch.file(JSON.stringify(a.messages))]
        : a.transcript !== undefined
          ? ['--transcript', scratch.file(String(a.transcript))]
          : [a.user, a.assistant].filter((x) => x !== undefined).map(String);
      return ['retain', ...input, ...flags(a, { source: '--source' })];
    },
  },
  {
    name: 'supersede',
    description: 'Mark a note as no longer true because another note replaced it. Both stay; searches then show only the current one.',
    inputSchema: schema({ old: str('the note that is no longer true'), by: str('the note that replaces it') }, ['old', 'by']),
    argv: (a) => ['supersede', String(a.old), '--by', String(a.by)],
  },
  {
    name: 'tend_check',
    description: 'Check every link between notes: ok, stale (target renamed, fixable), broken, or unanchored. Reports file and line for each problem.',
    inputSchema: schema({ strict: bool('also count links without a uuid anchor as problems') }),
    argv: (a) => ['tend', 'check', ...flags(a, { strict: '--strict' })],
  },
];
