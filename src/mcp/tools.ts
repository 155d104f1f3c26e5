import type { FromSchema } from 'json-schema-to-ts';
import * as api from '../api/index.js';
import { ZkError } from '../errors.js';
import type { InputMessage } from '../judge/transcript.js';
import * as notesView from '../text/notes.js';
import { tendText } from '../text/tend.js';
import * as judgedView from '../text/judged.js';
import { ingestTools } from './ingest-tools.js';
import { inboxTools } from './inbox-tools.js';
import { tendTools } from './tend-tools.js';
import { settings } from '../context.js';
import { serverText } from '../text/server.js';
import { tool, toolOf, type ToolAnswer, type ToolSpec } from './tool.js';
import { bool, int, kind, schema, str } from '../operations/operation.js';
import { archive, integrate, merge, supersede, write } from '../operations/notes.js';
import { context, list, log, read, search } from '../operations/recall.js';

export type { ToolAnswer, ToolSpec } from './tool.js';

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
  toolOf(search),
  toolOf(context),
  toolOf(read),
  toolOf(list),
  toolOf(write),
  toolOf(merge),
  toolOf(integrate),
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
  toolOf(supersede),
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
  toolOf(archive),
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
  toolOf(log),
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
