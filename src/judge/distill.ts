import { now } from '../context.js';
import { sha256 } from '../corpus/files/files.js';
import { isoDate, titleSlug } from '../corpus/note/slug.js';
import type { StructuredLLM } from '../llm/types.js';
import { runJudge, type JudgeContext, type JudgeResult, type JudgeSpec } from './call.js';
import { distillMessages } from './prompts.js';
import { defaultText, isPlainObject, repairKind, repairSlug } from './repair.js';
import { DISTILL_CALL, distillSchema, type Candidate, type Distillation } from './schemas.js';

export interface DistillContext extends JudgeContext {
  /** The date relative dates are resolved against (YYYY-MM-DD); default today, local time. */
  today?: string;
  /** Which segment of a longer input this is (0-based index). */
  segment?: { index: number; count: number };
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/gu;
/** The characters that give away a fragment of JSON syntax passed off as text. */
const JSON_SYNTAX = /[{}[\],:\\]/g;

/** Why a text is not a memory's words, or undefined when it may be. Empty text is left to validation. */
function nonsense(text: unknown): string | undefined {
  if (typeof text !== 'string' || !text.trim()) return undefined;
  const words = text.match(LETTER_OR_DIGIT)?.length ?? 0;
  if (!words) return 'has no letters or digits';
  const syntax = text.match(JSON_SYNTAX)?.length ?? 0;
  return syntax >= words ? 'is mostly JSON syntax' : undefined;
}

/** Why a drafted candidate cannot become a note, or undefined. */
function nonsenseCandidate(c: Record<string, unknown>): string | undefined {
  for (const key of ['title', 'content'] as const) {
    const why = nonsense(c[key]);
    if (why) return `${key} ${JSON.stringify(c[key]).slice(0, 60)} ${why}`;
  }
  return undefined;
}

/**
 * Whether a candidate reads like a memory even though the model said nothing was worth keeping:
 * some words of text, mostly letters and digits.
 */
function looksReal(c: unknown): boolean {
  if (!isPlainObject(c) || typeof c.content !== 'string') return false;
  const words = c.content.match(LETTER_OR_DIGIT)?.length ?? 0;
  const visible = c.content.replace(/\s/g, '').length;
  return words >= 8 && words * 2 >= visible;
}

/** Drop candidates that are not words at all (JSON debris, punctuation), each drop described. */
function dropNonsense(candidates: unknown[], repairs: string[]): { kept: unknown[]; dropped: number } {
  const kept: unknown[] = [];
  candidates.forEach((c, i) => {
    const why = isPlainObject(c) ? nonsenseCandidate(c) : undefined;
    if (why) repairs.push(`candidates/${i}: dropped, its ${why}`);
    else kept.push(c);
  });
  return { kept, dropped: candidates.length - kept.length };
}

/**
 * A false worth_retaining beside candidates: the candidates win when they all look like real
 * memories (nothing drafted is thrown away); when any was nonsense or they look thin, the flag is
 * the model's last word and none is kept. Either reading is described in `repairs`.
 */
function reconcileFlag(answer: Record<string, unknown>, dropped: number, repairs: string[]): void {
  const candidates = answer.candidates as unknown[];
  if (typeof answer.worth_retaining !== 'boolean') {
    answer.worth_retaining = candidates.length > 0;
    repairs.push(`worth_retaining: missing; read as ${answer.worth_retaining}`);
  } else if (!answer.worth_retaining && candidates.length) {
    const n = `${candidates.length} candidate(s)`;
    if (!dropped && candidates.every(looksReal)) {
      answer.worth_retaining = true;
      repairs.push(`worth_retaining: false beside ${n} that look like real memories; read as true, the candidates kept`);
    } else {
      answer.candidates = [];
      repairs.push(`worth_retaining: false beside ${n} not all like real memories; read as false, the candidates dropped`);
    }
  } else if (answer.worth_retaining && !candidates.length && dropped) {
    answer.worth_retaining = false;
    repairs.push('worth_retaining: true, but every candidate was dropped; read as false');
  }
}

function repairDistillation(answer: Record<string, unknown>, repairs: string[]): void {
  if (answer.candidates === undefined && answer.worth_retaining === false) {
    answer.candidates = [];
    repairs.push('candidates: missing while worth_retaining is false; read as none');
  }
  if (!Array.isArray(answer.candidates)) return;
  const { kept, dropped } = dropNonsense(answer.candidates, repairs);
  answer.candidates = kept;
  reconcileFlag(answer, dropped, repairs);
  (answer.candidates as unknown[]).forEach((c, i) => {
    if (!isPlainObject(c)) return;
    const at = `candidates/${i}`;
    const kind = repairKind(c, at, repairs);
    defaultText(c, ['topic', 'title', 'slug']);
    // An entity_update without a title is meant to be appended; its name comes from the topic later.
    repairSlug(c, at, repairs, kind === 'entity_update' && !c.title ? [] : [c.title, c.topic]);
  });
}

function checkDistillation(answer: Record<string, unknown>): string[] {
  const errors: string[] = [];
  (answer.candidates as Candidate[]).forEach((c, i) => {
    if (c.kind !== 'entity_update' && !c.title) errors.push(`candidates/${i}/title: a ${c.kind} needs a title`);
    if (c.kind === 'entity_update' && !c.title && !c.topic) errors.push(`candidates/${i}: an entity_update needs a topic or a title`);
  });
  return errors;
}

const distillSpec: JudgeSpec<Distillation> = {
  call: 'distill',
  name: DISTILL_CALL,
  description: 'record the memories worth keeping from a conversation (possibly none)',
  schema: distillSchema,
  repair: repairDistillation,
  check: checkDistillation,
  build: (a) => a as unknown as Distillation,
};

/**
 * Distill one conversation (or one segment of it) into candidate memories. An empty list is a
 * valid answer. The trace line carries the text's hash and the segment.
 */
export async function distill(llm: StructuredLLM, text: string, ctx: DistillContext = {}): Promise<JudgeResult<Distillation>> {
  if (!text.trim()) return { ok: true, value: { worth_retaining: false, candidates: [] }, repairs: [], attempts: 0 };
  const messages = distillMessages(text, { today: ctx.today ?? isoDate(new Date(now())), segment: ctx.segment });
  const fields = { input_hash: sha256(text), chars: text.length, ...(ctx.segment ? { segment: ctx.segment } : {}) };
  return runJudge(llm, distillSpec, messages, { ...ctx, trace: { ...fields, ...ctx.trace } });
}

/**
 * Distill segment after segment; a failed segment does not take the others down. One result per
 * segment, in order.
 */
export async function distillSegments(llm: StructuredLLM, segments: string[], ctx: DistillContext = {}): Promise<JudgeResult<Distillation>[]> {
  const results: JudgeResult<Distillation>[] = [];
  for (const [index, text] of segments.entries()) {
    results.push(await distill(llm, text, { ...ctx, segment: { index, count: segments.length } }));
  }
  return results;
}

/**
 * Title and slug for a candidate that becomes a note of its own. An entity_update may come without
 * them; they are derived from its topic (then its content), so a create never fails for want of a slug.
 */
export function candidateNoteName(c: Candidate): { title: string; slug: string } {
  const title = c.title || c.topic || c.content.split('\n')[0].slice(0, 80).trim() || 'Note';
  const slug = c.slug || titleSlug(title) || titleSlug(c.topic) || titleSlug(c.content.slice(0, 200)) || 'note';
  return { title, slug };
}
