import { ZkError } from '../errors.js';
import { sha256 } from '../corpus/files/files.js';
import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { sourceFromAuthor } from '../corpus/note/source.js';
import { distill, judgeError, transcriptSegments, textSegments, type InputMessage } from '../judge/index.js';
import type { Candidate } from '../judge/schemas.js';
import type { StructuredLLM } from '../llm/types.js';
import { spool, drainInbox, type InboxItem, type DrainReport } from './inbox.js';
import { integrate } from './integrate.js';

/** What to retain: one exchange, chat messages, or a plain transcript. */
export type RetainInput = { turn: { user: string; assistant: string } } | { messages: InputMessage[] } | { transcript: string };

export interface RetainResultRow {
  action: 'created' | 'merged' | 'superseded';
  kind: string;
  title: string;
  note?: NoteInfo;
  target?: NoteInfo;
}

export interface RetainReport {
  results: RetainResultRow[];
  /** The inbox file (relative to the root) holding what could not be processed, or null. */
  spooled: string | null;
  /** Why something was spooled. */
  failure?: string;
  /** The LLM endpoint could not be reached: what was left after the first failure was spooled untried. */
  unreachable?: boolean;
}

export interface RetainOptions {
  /** The LLM, or undefined when none is configured (then everything is spooled). */
  llm?: StructuredLLM;
  /** Why there is no LLM, when there is none. */
  unavailable?: string;
  backend?: string;
  source?: string;
}

/** The input as text segments to distill: only user and assistant words, recall blocks removed, nothing cut. */
export function retainSegments(input: RetainInput): string[] {
  if ('turn' in input)
    return transcriptSegments([
      { role: 'user', content: input.turn.user },
      { role: 'assistant', content: input.turn.assistant },
    ]);
  if ('messages' in input) return transcriptSegments(input.messages);
  return textSegments(input.transcript);
}

/** Place one candidate with the shared merge-or-create step. */
async function place(root: string, c: Candidate, llm: StructuredLLM, o: RetainOptions, traceFields: Record<string, unknown>): Promise<RetainResultRow> {
  const r = await integrate(root, c, { llm, backend: o.backend, source: o.source, trace: traceFields });
  return {
    action: r.action,
    kind: c.kind,
    title: r.note.title,
    note: noteInfo(r.note),
    ...(r.target ? { target: noteInfo(r.target) } : {}),
  };
}

/** What one retain run could not process, and why: passed along explicitly, one per run. */
interface Failures {
  items: InboxItem[];
  /** Why each segment's distillation failed, one entry per failed segment. */
  segments: string[];
  /** Why each candidate could not be placed. */
  candidates: string[];
  /** Set when the endpoint cannot be reached: every later call would fail alike, so none is made. */
  unreachable?: ZkError;
}

function noFailures(): Failures {
  return { items: [], segments: [], candidates: [] };
}

function errorText(err: unknown): string {
  return String((err as Error)?.message ?? err);
}

/** The distinct reasons, in the order first seen. */
function distinct(reasons: string[]): string {
  return [...new Set(reasons)].join('; ');
}

/**
 * One line on everything that failed: how many segments (of how many) and how many memories, with
 * the distinct reasons, so a run whose every segment was refused says so rather than naming one.
 */
function failureMessage(f: Failures, segmentCount: number): string {
  if (f.unreachable) return f.unreachable.message;
  const parts: string[] = [];
  if (f.segments.length) {
    parts.push(segmentCount > 1 ? `${f.segments.length} of ${segmentCount} segments failed: ${distinct(f.segments)}` : distinct(f.segments));
  }
  if (f.candidates.length) {
    const n = f.candidates.length;
    parts.push(`${n} ${n > 1 ? 'memories' : 'memory'} could not be placed: ${distinct(f.candidates)}`);
  }
  return parts.join('; ');
}

/**
 * Distill a text and place every candidate; what fails (the distillation, a candidate) goes into
 * `failures`. Once the endpoint has proved unreachable, what is left goes there untried.
 */
async function retainText(
  root: string,
  text: string,
  llm: StructuredLLM,
  o: RetainOptions,
  segment: { index: number; count: number } | undefined,
  failures: Failures,
): Promise<RetainResultRow[]> {
  if (failures.unreachable) {
    failures.items.push({ type: 'text', text });
    return [];
  }
  const inputHash = sha256(text);
  const d = await distill(llm, text, { root, segment, trace: { input_hash: inputHash } });
  if (!d.ok) {
    failures.items.push({ type: 'text', text });
    failures.segments.push(d.reason);
    if (d.unreachable) failures.unreachable = judgeError(d, 'distill the conversation');
    return [];
  }
  const rows: RetainResultRow[] = [];
  for (const c of d.value.candidates) {
    if (failures.unreachable) {
      failures.items.push({ type: 'candidate', candidate: c });
      continue;
    }
    try {
      rows.push(await place(root, c, llm, o, { input_hash: inputHash, ...(segment ? { segment } : {}) }));
    } catch (err) {
      failures.items.push({ type: 'candidate', candidate: c });
      failures.candidates.push(errorText(err));
      if (err instanceof ZkError && err.code === 'llm_unreachable') failures.unreachable = err;
    }
  }
  return rows;
}

/**
 * Distill the input segment by segment and integrate every candidate. A segment (or candidate)
 * the LLM could not handle is spooled to the inbox; the others still land. Nothing is dropped.
 */
export async function retain(root: string, input: RetainInput, o: RetainOptions): Promise<RetainReport> {
  const segments = retainSegments(input);
  if (!o.llm) {
    if (!segments.length) return { results: [], spooled: null };
    const reason = o.unavailable ?? 'no LLM configured';
    return {
      results: [],
      spooled: spool(
        root,
        segments.map((text) => ({ type: 'text', text })),
        { source: o.source, reason },
      ),
      failure: reason,
    };
  }
  const results: RetainResultRow[] = [];
  const failures = noFailures();
  for (const [index, text] of segments.entries()) {
    const segment = segments.length > 1 ? { index, count: segments.length } : undefined;
    try {
      results.push(...(await retainText(root, text, o.llm, o, segment, failures)));
    } catch (err) {
      failures.items.push({ type: 'text', text });
      failures.segments.push(errorText(err));
    }
  }
  if (!failures.items.length) return { results, spooled: null };
  const failure = failureMessage(failures, segments.length);
  const spooled = spool(root, failures.items, { source: o.source, reason: failure });
  return { results, spooled, failure, ...(failures.unreachable ? { unreachable: true } : {}) };
}

/** Retry the inbox with the LLM: texts are distilled and placed, candidates placed. */
export async function drain(root: string, o: RetainOptions & { llm: StructuredLLM }): Promise<DrainReport & { results: RetainResultRow[] }> {
  const results: RetainResultRow[] = [];
  const report = await drainInbox(root, async (item, entry) => {
    // An inbox file's source is data (a captured session's id, a file edited by hand): made one plain line, as a source must be.
    const opts = { ...o, source: o.source ?? sourceFromAuthor(entry.source) };
    if (item.type === 'candidate') {
      results.push(await place(root, item.candidate, o.llm, opts, { drained: true }));
      return;
    }
    const failures = noFailures();
    const rows = await retainText(root, item.text, o.llm, opts, undefined, failures);
    results.push(...rows);
    // The text stays whole in the inbox when its distillation or any of its candidates failed
    // (what did land is not undone); an unreachable endpoint stops the drain.
    if (failures.unreachable) throw failures.unreachable;
    if (failures.items.length) throw new Error(failureMessage(failures, 1));
  });
  return { ...report, results };
}
