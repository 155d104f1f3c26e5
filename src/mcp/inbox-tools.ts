import * as api from '../api/corpus.js';
import { inboxNextText } from '../text/inbox.js';
import { inboxDismissText } from '../text/notes.js';
import { schema, str } from '../operations/operation.js';
import { tool, type ToolSpec } from './tool.js';

const file = str('the inbox file, as inbox_next showed it');

/** The agent as the model: it takes a waiting input, keeps what matters with write or merge, and marks it done or skipped. */
export const inboxTools: ToolSpec[] = [
  tool({
    name: 'inbox_next',
    description:
      'Take the oldest input waiting in the inbox (a captured session, or memories no LLM judged yet) to keep it yourself: read it, write what matters with write or merge in your own words, then call inbox_done (or inbox_skip). done: true means nothing waits.',
    inputSchema: schema({}),
    async run(root, _args, _caller, session) {
      const r = api.inboxNext(root, { holder: session.id });
      return { json: { ...r }, text: inboxNextText(r) };
    },
  }),
  tool({
    name: 'inbox_done',
    description:
      'Mark an inbox input done once you kept what matters from it with write or merge: it is set aside (never deleted) and no LLM will distill it again.',
    inputSchema: schema({ file }, ['file']),
    async run(root, a) {
      const r = api.inboxDismiss(root, a.file, { as: 'done' });
      return { json: { ...r }, text: inboxDismissText(r) };
    },
  }),
  tool({
    name: 'inbox_skip',
    description: 'Set an inbox input aside without notes: it holds nothing worth keeping.',
    // Its reason goes into the trace: redacted under ZK_MEMORY_REDACT.
    redacts: true,
    inputSchema: schema({ file, reason: str('why') }, ['file']),
    async run(root, a) {
      const r = api.inboxDismiss(root, a.file, { as: 'skipped', reason: a.reason });
      return { json: { ...r }, text: inboxDismissText(r) };
    },
  }),
];
