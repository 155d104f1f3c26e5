import * as api from '../api/ingest.js';
import * as view from '../text/ingest.js';
import { kindProperty, schema, str } from '../operations/operation.js';
import { tool, type ToolSpec } from './tool.js';

const job = str('the ingest job (default: the only one)');
const window = str('the window id, as ingest_next showed it (default: the one you hold)');
const source = str('who reads: name yourself so your windows stay yours');

/** Studying source documents over MCP: the tool keeps the place, the agent writes every note. */
export const ingestTools: ToolSpec[] = [
  tool({
    name: 'ingest_start',
    description:
      'Start studying source documents (Markdown, text, HTML, DOCX, PDF): a file or folder on the server (over HTTP only under the folders the server allows), or one document passed as text with a name. It is converted and cut into reading windows. Then call ingest_next until it says done.',
    // What it stores of a document given as text comes from the agent: redacted under ZK_MEMORY_REDACT.
    redacts: true,
    inputSchema: schema({
      from: str('a file or folder path on the server (over HTTP: under a folder the server allows, absolute or relative to the first)'),
      text: str('or the document itself: Markdown, plain text or HTML, at most 1 MiB (name it with name)'),
      name: str('the job name (default: the file or folder name); with text, the document name, such as notes.md'),
    }),
    async run(root, a, caller) {
      // Only the host's owner (a session without a caller: stdio) reads any path the process can.
      const r = await api.ingestStart(root, { from: a.from, text: a.text, name: a.name, allowedFolders: caller?.ingestFolders });
      return { json: { ...r }, text: view.ingestStartText(r) };
    },
  }),
  tool({
    name: 'ingest_next',
    description:
      'Show the next reading window with its heading path, the notes already captured from the document and related notes in memory. Then write what matters in your own words with ingest_accept, or ingest_skip it. done: true means nothing is left.',
    inputSchema: schema({ job, window: str('show this window again'), source }),
    async run(root, a) {
      const r = await api.ingestNext(root, { job: a.job, window: a.window, source: a.source });
      return { json: { ...r }, text: view.nextText(r) };
    },
  }),
  tool({
    name: 'ingest_accept',
    description:
      'Keep what the window says as a note in your own words: a new note (title and body), or a fragment merged into an existing note (merge). keep leaves the window open for another note.',
    redacts: true,
    inputSchema: schema(
      {
        body: str('the note (or fragment) in your own words'),
        title: str('title of a new note'),
        merge: str('ref of a note to append to instead'),
        kind: kindProperty(),
        keep: { type: 'boolean', description: 'leave the window open for another note' },
        job,
        window,
        source,
      },
      ['body'],
    ),
    async run(root, a) {
      const r = await api.ingestAccept(root, {
        body: a.body,
        title: a.title,
        merge: a.merge,
        kind: a.kind,
        keep: a.keep,
        job: a.job,
        window: a.window,
        source: a.source,
      });
      return { json: { ...r }, text: view.acceptText(r) };
    },
  }),
  tool({
    name: 'ingest_skip',
    description: 'Close the window without a note: it holds nothing worth keeping.',
    // Its reason is kept with the job: redacted under ZK_MEMORY_REDACT.
    redacts: true,
    inputSchema: schema({ reason: str('why'), job, window, source }),
    async run(root, a) {
      const r = await api.ingestSkip(root, { reason: a.reason, job: a.job, window: a.window, source: a.source });
      return { json: { ...r }, text: view.skipText(r) };
    },
  }),
  tool({
    name: 'ingest_status',
    description: 'Where an ingest job stands: per document the pending, done and skipped windows and the notes captured; files that could not be read and why.',
    inputSchema: schema({ job }),
    readOnly: true,
    async run(root, a) {
      const r = await api.ingestStatus(root, { job: a.job });
      return { json: { ...r }, text: view.jobStatusText(r) };
    },
  }),
];
