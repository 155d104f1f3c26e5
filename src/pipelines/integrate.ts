import { ZkError } from '../errors.js';
import { decisionBody } from '../corpus/note/format.js';
import type { Kind } from '../corpus/note/kinds.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { appendFragment } from '../corpus/ops/merge.js';
import { writeNote } from '../corpus/ops/write.js';
import { checkKind } from '../corpus/note/kinds.js';
import { supersede } from '../corpus/ops/supersede.js';
import { trace } from '../corpus/trace/trace.js';
import { warn } from '../corpus/warn.js';
import { momentMs } from '../corpus/note/moments.js';
import { candidateNoteName, judgeError, judgeMerge, shownNote, PROMPT_VERSION, type ShownNote } from '../judge/index.js';
import type { Candidate } from '../judge/schemas.js';
import { llmUnconfigured } from '../llm/config.js';
import type { StructuredLLM } from '../llm/types.js';
import { searchCorpus } from '../search/backends.js';
import type { RelevanceFloor } from '../search/types.js';
import { sharedSplit } from './split.js';

/** How many existing notes the merge judge is shown. */
export const INTEGRATE_HITS = 3;

export interface IntegrateInput {
  content: string;
  /** What the memory is about, in a few words: what is searched for an existing note. */
  topic?: string;
  kind?: string;
  title?: string;
  slug?: string;
  choice?: string;
  alternatives?: string[];
  rationale?: string;
}

export interface IntegrateOptions extends Omit<DecideOptions, 'found' | 'untraced'> {
  /** Who the memory comes from (author of a new note, source of a merge fragment). */
  source?: string;
}

export interface IntegrateOutcome {
  action: 'created' | 'merged' | 'superseded';
  note: Note;
  target?: Note;
  reason: string;
}

/** A candidate memory, whether it came from the command line or from distillation. */
export function toCandidate(input: IntegrateInput): Candidate {
  const content = (input.content ?? '').trim();
  if (!content) throw new ZkError('usage', 'empty content: nothing to integrate');
  const kind: Kind = checkKind(input.kind) ?? 'concept';
  const topic = (input.topic ?? '').trim() || (input.title ?? '').trim() || content.split('\n')[0].slice(0, 120);
  return {
    kind,
    topic,
    title: (input.title ?? '').trim(),
    slug: (input.slug ?? '').trim(),
    content,
    choice: input.choice,
    alternatives: input.alternatives,
    rationale: input.rationale,
  };
}

/** Write a candidate as a new note; a name clash takes the next free name, never drops it. */
export function createFromCandidate(root: string, c: Candidate, source?: string): Note {
  const { title, slug } = candidateNoteName(c);
  const body = c.kind === 'decision' ? decisionBody(c.content, c) : c.content;
  return writeNote(root, { slug, title, body, kind: c.kind, source, unique: true });
}

/** Where the search for a candidate's home looks, and what it leaves out. */
export interface FindOptions {
  /** Search backend (else the configured one). */
  backend?: string;
  /** Notes that must not be chosen as target (the gardener passes the note it is tending). */
  exclude?: string[];
  /** The relevance floor a note must pass (default: `CANDIDATE_MIN_SHARE` of the topic's words). */
  floor?: RelevanceFloor;
}

/**
 * How much of a topic of a few words a note must cover to be a candidate (see `FindOptions.floor`): a note
 * that shares one incidental word with the topic would only cost a judge call that ends in "create".
 */
export const CANDIDATE_MIN_SHARE = 0.5;

/**
 * The notes the judge may be shown for a candidate: search hits on its topic that pass the
 * relevance floors (the lexical share above; for vectors, the search's own floor), read in full.
 */
export async function findCandidates(root: string, c: Candidate, o: FindOptions): Promise<Note[]> {
  const exclude = new Set(o.exclude ?? []);
  const found = await searchCorpus(root, c.topic, {
    limit: INTEGRATE_HITS + exclude.size,
    backend: o.backend,
    ...(o.floor ?? { minShare: CANDIDATE_MIN_SHARE }),
  });
  return found.hits
    .filter((h) => !exclude.has(h.path))
    .slice(0, INTEGRATE_HITS)
    .map((h) => readNoteFile(root, h.path))
    .filter((n): n is Note => Boolean(n));
}

export interface DecideOptions extends FindOptions {
  /** The judge; without one, only what needs no judge call is done (else `llm_unconfigured`). */
  llm?: StructuredLLM;
  /** Fields added to every trace line (the input's hash and segment, for retain). */
  trace?: Record<string, unknown>;
  /** Offer supersede to the judge (default true). */
  allowSupersede?: boolean;
  /** The notes already found for this candidate (by findCandidates), so they are not searched twice. */
  found?: Note[];
  /** Leave no trace line (a dry run writes nothing at all). */
  untraced?: boolean;
  /**
   * The note the candidate is, when an existing note is being placed (the gardener): it is never
   * folded into a note of its own split family, whatever the judge proposes.
   */
  placing?: Note;
}

/** Where a candidate belongs, decided but not yet written. */
export interface TargetDecision {
  action: 'create' | 'merge' | 'supersede';
  /** The shown note to merge into or supersede. */
  target?: Note;
  reason: string;
  /** For supersede: the day the judge read the new memory to hold true from, as it gave it (unchecked). */
  validFrom?: string;
  /** The notes the judge was shown (none when no judge was needed). */
  shown: ShownNote[];
  /** Why the judge's proposed merge was refused, when it was. */
  refused?: string;
}

/**
 * Why a fold of `placing` into `target` must not happen: a split said they are separate thoughts,
 * so neither the parent and a child nor two children are ever folded into one another.
 */
function foldRefusal(placing: Note | undefined, target: Note): string | undefined {
  const split = placing && sharedSplit(placing, target);
  return split
    ? `refused to fold ${placing!.path} into ${target.path}: both are parts of one split (${split}), which said they are separate thoughts`
    : undefined;
}

/**
 * The merge-or-create decision every pipeline shares, without writing: a decision is always a note
 * of its own; otherwise the topic is searched and, when notes are found, one judge call decides. A
 * target the judge was not shown is never acted on. Throws ZkError('llm_failed') when the judge
 * cannot answer (`llm_unreachable` when its endpoint cannot be reached).
 */
export async function decideTarget(root: string, c: Candidate, o: DecideOptions): Promise<TargetDecision> {
  if (c.kind === 'decision') return { action: 'create', reason: 'a decision is always a note of its own', shown: [] };
  const notes = o.found ?? (await findCandidates(root, c, o));
  if (!notes.length) return { action: 'create', reason: 'no existing note was found', shown: [] };
  const shown = notes.map(shownNote);
  if (!o.llm) throw new ZkError('llm_unconfigured', llmUnconfigured(), { shown: shown.map((n) => n.path ?? n.id) });
  const judged = await judgeMerge(o.llm, c, shown, { root: o.untraced ? undefined : root, trace: o.trace, allowSupersede: o.allowSupersede });
  if (!judged.ok) throw judgeError(judged, 'judge where this belongs', { shown: shown.map((n) => n.path ?? n.id) });
  const v = judged.value;
  const target = v.target && notes.find((n) => n.path === v.target!.path);
  const refused = v.action === 'merge' && target ? foldRefusal(o.placing, target) : undefined;
  if (refused) {
    if (!o.untraced) trace(root, 'fold_refused', { ...o.trace, note: o.placing!.path, target: target!.path, reason: refused });
    return { action: 'create', reason: refused, shown, refused };
  }
  if (v.action !== 'create' && target) return { action: v.action, target, reason: v.reason, shown, ...(v.validFrom ? { validFrom: v.validFrom } : {}) };
  return { action: 'create', reason: v.overruled ?? v.reason, shown };
}

/** The judge's valid_from when it is a day or a moment; anything else is said and dropped: it never fails the write. */
function judgedValidFrom(value: string | undefined): string | undefined {
  if (!value || momentMs(value) !== undefined) return value;
  warn(`the judge gave valid_from ${JSON.stringify(value.slice(0, 40))}, which is not a date: the new note was written without it`);
  return undefined;
}

/**
 * The careful write every pipeline shares: decideTarget, then merge into the target, supersede it,
 * or create. Throws ZkError('llm_failed') when the judge cannot answer, having written nothing.
 */
export async function integrate(root: string, c: Candidate, o: IntegrateOptions): Promise<IntegrateOutcome> {
  const source = o.source;
  const base = { ...o.trace, candidate: { kind: c.kind, topic: c.topic, title: c.title }, model: o.llm?.model ?? null, prompt_version: PROMPT_VERSION };
  const done = (r: IntegrateOutcome, shown: ShownNote[]) => {
    trace(root, 'integrate', {
      ...base,
      shown: shown.map((n) => n.path ?? n.id),
      action: r.action,
      note: r.note.path,
      target: r.target?.path ?? null,
      reason: r.reason,
    });
    return r;
  };

  let d: TargetDecision;
  try {
    d = await decideTarget(root, c, o);
  } catch (err) {
    if (err instanceof ZkError && (err.code === 'llm_failed' || err.code === 'llm_unreachable')) {
      trace(root, 'integrate', { ...base, shown: err.details?.shown ?? [], action: 'failed', reason: err.message });
    }
    throw err;
  }
  if (d.action === 'merge' && d.target) {
    const merged = await appendFragment(root, d.target.path, c.content, { source });
    return done({ action: 'merged', note: merged, target: merged, reason: d.reason }, d.shown);
  }
  if (d.action === 'supersede' && d.target) {
    const created = createFromCandidate(root, c, source);
    const r = await supersede(root, d.target.path, created.path, { validFrom: judgedValidFrom(d.validFrom) });
    return done({ action: 'superseded', note: r.new, target: r.old, reason: d.reason }, d.shown);
  }
  return done({ action: 'created', note: createFromCandidate(root, c, source), reason: d.reason }, d.shown);
}
