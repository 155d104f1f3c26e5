import { ZkError } from '../errors.js';
import { noteInfo, type NoteInfo } from '../corpus/note/notes.js';
import { defaultSource } from '../corpus/note/source.js';
import { llmUnconfigured } from '../llm/config.js';
import { current } from '../context.js';
import type { StructuredLLM } from '../llm/types.js';
import type { InputMessage } from '../judge/transcript.js';
import type { GardenerReport } from '../pipelines/gardener.js';
import { spool } from '../pipelines/inbox.js';
import { integrate as integrateCandidate, toCandidate, type IntegrateInput } from '../pipelines/integrate.js';
import { drain, retain as retainInput, type RetainInput } from '../pipelines/retain.js';
import { configuredBackend } from '../search/backends.js';
import { requireLinkStyle } from '../corpus/graph/related.js';
import { drainCommit, integrateCommit, retainCommit, splitCommit, gardenerCommit } from './commit-message.js';
import type { DrainResult, IntegrateResult, RetainResult, SplitResult, TendWritesResult } from './results.js';
import { committing } from './commit.js';
import { hint } from '../hints.js';

// The judged writes: each takes the LLM injected (`llm`) or the one the call's models port gives, and
// answers the objects `--json` prints. Work that cannot be judged is kept in the inbox, never lost.

/** The model the call's settings configure, from its models port (src/compose.ts), or undefined when none is. */
function callLlm(): StructuredLLM | undefined {
  return current().models?.llm();
}

/** The model, or the `llm_unconfigured` error (exit 3). */
function neededLlm(): StructuredLLM {
  const llm = callLlm();
  if (!llm) throw new ZkError('llm_unconfigured', llmUnconfigured());
  return llm;
}

export interface Judged {
  /** The model; default: the configured one. */
  llm?: StructuredLLM;
  source?: string;
  /** Search backend used to find candidate notes. */
  backend?: string;
}

export interface IntegrateRequest extends IntegrateInput, Judged {}

/** Careful write: merge into the note it belongs to, supersede one, or create (the LLM judges). */
export async function integrate(root: string, o: IntegrateRequest): Promise<IntegrateResult> {
  const candidate = toCandidate(o);
  const backend = configuredBackend(o.backend);
  const source = defaultSource(o.source);
  // Only a real judge call needs the LLM: a decision, or a memory with no note like it, is written without one.
  const llm = o.llm ?? callLlm();
  try {
    return await committing(
      root,
      async (): Promise<IntegrateResult> => {
        const r = await integrateCandidate(root, candidate, { llm, backend, source });
        return { action: r.action, note: noteInfo(r.note), ...(r.target ? { target: noteInfo(r.target) } : {}), reason: r.reason };
      },
      integrateCommit,
    );
  } catch (err) {
    if (!(err instanceof ZkError) || !['llm_failed', 'llm_unreachable', 'llm_unconfigured'].includes(err.code)) throw err;
    const spooled = spool(root, [{ type: 'candidate', candidate }], { source, reason: err.code === 'llm_unconfigured' ? 'no LLM configured' : err.message });
    throw new ZkError(err.code, `${err.message} (kept in ${spooled} for ${hint('drainInbox')})`, { spooled });
  }
}

export type RetainRequestInput = { user: string; assistant: string } | { messages: InputMessage[] } | { transcript: string };

export interface RetainRequest extends Judged {
  input: RetainRequestInput;
}

function asRetainInput(i: RetainRequestInput): RetainInput {
  if ('messages' in i) return { messages: i.messages };
  if ('transcript' in i) return { transcript: i.transcript };
  return { turn: { user: i.user, assistant: i.assistant } };
}

/** Distill a conversation into notes; what the LLM could not do is kept in the inbox. */
export async function retain(root: string, o: RetainRequest): Promise<RetainResult> {
  return committing(root, () => retainUncommitted(root, o), retainCommit);
}

async function retainUncommitted(root: string, o: RetainRequest): Promise<RetainResult> {
  const backend = configuredBackend(o.backend);
  const source = defaultSource(o.source);
  const llm = o.llm ?? callLlm();
  const unconfigured = llmUnconfigured();
  const r = await retainInput(root, asRetainInput(o.input), llm ? { llm, backend, source } : { unavailable: unconfigured, backend, source });
  if (!r.spooled) return { results: r.results, spooled: null };
  const message = `${r.failure ?? 'the LLM failed'}; input kept in ${r.spooled} (retry with ${hint('drainInbox')})`;
  const code = r.failure === unconfigured ? 'llm_unconfigured' : r.unreachable ? 'llm_unreachable' : 'llm_failed';
  return { results: r.results, spooled: r.spooled, error: { code, message } };
}

/** Retry what earlier runs left in the inbox; an unreachable endpoint stops it at the first item. */
export async function retainDrain(root: string, o: Judged & { lease?: boolean } = {}): Promise<DrainResult> {
  const llm = o.llm ?? neededLlm();
  if (o.lease) {
    // A background drain (started by a hook) runs as a caretaker: one at a time, beside no gardener.
    const { withCaretakerLease } = await import('../corpus/lock/lease.js');
    return withCaretakerLease(root, 'drain', () => retainDrain(root, { ...o, llm, lease: false }));
  }
  return committing(
    root,
    async () => {
      const d = await drain(root, { llm, backend: configuredBackend(o.backend), source: defaultSource(o.source) });
      const result: DrainResult = { results: d.results, drained: d.done, kept: d.kept, files: d.files };
      if (!d.stopped) return result;
      return { ...result, error: { code: 'llm_unreachable', message: `${d.stopped.message}; the drain stopped, and the rest stays in the inbox` } };
    },
    drainCommit,
  );
}

export interface SplitRequest extends Pick<Judged, 'llm' | 'source'> {
  maxFragments?: number;
  /** How the parent and children link: markdown or wikilink (default: ZK_MEMORY_LINK_STYLE, else markdown). */
  linkStyle?: string;
}

/** De-merge an overgrown note into a summary parent and children (the LLM judges). */
export async function split(root: string, ref: string, o: SplitRequest = {}): Promise<SplitResult> {
  const { resolveRef } = await import('../corpus/graph/refs.js');
  resolveRef(root, ref); // a bad ref is a refusal whether or not an LLM is configured
  const linkStyle = requireLinkStyle(o.linkStyle);
  const llm = o.llm ?? neededLlm();
  const { splitNote } = await import('../pipelines/split.js');
  return committing(
    root,
    async (): Promise<SplitResult> => {
      const r = await splitNote(root, ref, { llm, maxFragments: o.maxFragments, source: defaultSource(o.source), linkStyle });
      if (r.action === 'not_split') return { action: r.action, note: noteInfo(r.note), children: [], failed: [] };
      return {
        action: r.action,
        note: noteInfo(r.note),
        parent: noteInfo(r.parent!),
        children: r.children.map(noteInfo),
        archived: r.archived,
        failed: r.failed,
      };
    },
    splitCommit,
  );
}

export interface SplitCandidatesResult {
  candidates: (NoteInfo & { size: number })[];
}

/** The notes most in need of splitting: the largest first. */
export async function splitCandidates(root: string, o: { top?: number } = {}): Promise<SplitCandidatesResult> {
  const { splitCandidates: largest } = await import('../pipelines/split-candidates.js');
  return { candidates: largest(root, o.top).map((n) => ({ ...noteInfo(n), size: n.size })) };
}

export interface TendWritesRequest extends Judged {
  limit?: number;
  splitSweep?: number;
  maxFragments?: number;
  dryRun?: boolean;
  /** How new links are written: markdown or wikilink (default: ZK_MEMORY_LINK_STYLE, else markdown). */
  linkStyle?: string;
  progress?: (line: string) => void;
}

/** The gardener: fold duplicates, link related notes, and (with a split sweep) split the largest notes. */
export async function tendWrites(root: string, o: TendWritesRequest = {}): Promise<TendWritesResult> {
  const backend = configuredBackend(o.backend);
  const linkStyle = requireLinkStyle(o.linkStyle);
  const llm = o.llm ?? neededLlm();
  const { runGardener } = await import('../pipelines/gardener.js');
  return committing(
    root,
    async () => {
      const r: GardenerReport = await runGardener(root, {
        llm,
        backend,
        limit: o.limit,
        splitSweep: o.splitSweep,
        maxFragments: o.maxFragments,
        dryRun: Boolean(o.dryRun),
        source: defaultSource(o.source),
        linkStyle,
        progress: o.progress,
      });
      return gardenResult(r);
    },
    gardenerCommit,
  );
}

function gardenResult(r: GardenerReport): TendWritesResult {
  const result: TendWritesResult = { dry_run: r.dryRun, rows: r.rows, summary: r.summary };
  if (!r.errors.length) return result;
  if (r.stoppedAt) {
    const e = r.errors.at(-1)!;
    const message = `${e.message}; the pass stopped at ${r.stoppedAt}, and the notes not reached are tended next pass`;
    return { ...result, error: { code: e.code, message, exit: e.exitCode } };
  }
  // An LLM failure names the pass's outcome; otherwise the first failure does.
  const first = r.errors.find((e) => e.code === 'llm_failed' || e.code === 'llm_unconfigured') ?? r.errors[0];
  const message = `${r.errors.length} note(s) could not be tended (first: ${first.message}); they are tried again next pass`;
  return { ...result, error: { code: first.code, message, exit: first.exitCode } };
}
