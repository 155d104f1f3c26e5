import { now } from '../context.js';
import type { Note } from '../corpus/note/notes.js';
import { isoDate } from '../corpus/note/slug.js';
import type { StructuredLLM } from '../llm/types.js';
import { runJudge, type JudgeContext, type JudgeResult } from './call.js';
import { mergeMessages, type ShownNote } from './prompts.js';
import { defaultText } from './repair.js';
import { MERGE_CALL, MERGE_ACTIONS, mergeSchema, type Candidate, type MergeAction, type MergeDecision } from './schemas.js';

export interface MergeContext extends JudgeContext {
  /** Offer `supersede` (default true); without it the judge chooses between merge and create. */
  allowSupersede?: boolean;
  /** The date "since October" is read against (YYYY-MM-DD); default today, local time. */
  today?: string;
}

/** A merge decision checked against the notes the judge was shown: the only one to act on. */
export interface MergeVerdict {
  action: MergeAction;
  /** The shown note to merge into or supersede; absent for create. */
  target?: ShownNote;
  reason: string;
  /** For supersede: the day the judge read the new memory to hold true from, as it gave it (unchecked). */
  validFrom?: string;
  /** Why the judge's own choice was overruled, when it was. */
  overruled?: string;
}

/** A note as the judge sees it; the id is its uuid, or its stem when it has none. */
export function shownNote(note: Note): ShownNote {
  return { id: note.uuid || note.slug, title: note.title, body: note.parsed.body, path: note.path };
}

function sameRef(ref: string, n: ShownNote): boolean {
  const r = ref.trim().toLowerCase();
  return [n.id, n.path, n.path?.replace(/\.md$/, '')].some((x) => x !== undefined && x.toLowerCase() === r);
}

/**
 * Never act on a reference the judge was not shown: a target outside `shown` means create. A
 * decision never merges (it stays a dated record of its own).
 */
export function verifyMergeDecision(decision: MergeDecision, shown: ShownNote[], candidateKind?: string): MergeVerdict {
  if (decision.action === 'create') return { action: 'create', reason: decision.reason };
  const target = shown.find((n) => sameRef(decision.target, n));
  if (!target) {
    return {
      action: 'create',
      reason: decision.reason,
      overruled: `${decision.action} target ${JSON.stringify(decision.target)} is not among the shown notes`,
    };
  }
  if (decision.action === 'merge' && candidateKind === 'decision') {
    return { action: 'create', reason: decision.reason, overruled: 'a decision never merges' };
  }
  const validFrom = decision.action === 'supersede' && typeof decision.valid_from === 'string' ? decision.valid_from.trim() : '';
  return { action: decision.action, target, reason: decision.reason, ...(validFrom ? { validFrom } : {}) };
}

function repairMergeDecision(allowed: readonly string[]) {
  return (answer: Record<string, unknown>, repairs: string[]): void => {
    defaultText(answer, ['target', 'reason']);
    if (!allowed.includes(answer.action as string)) {
      repairs.push(`action: ${answer.action === undefined ? 'missing' : JSON.stringify(answer.action)}; read as create`);
      answer.action = 'create';
    }
    if (answer.action !== 'create' && !answer.target) {
      repairs.push(`action: ${answer.action} without a target; read as create`);
      answer.action = 'create';
    }
  };
}

/**
 * Ask whether a candidate belongs in one of the shown notes (merge), replaces one (supersede), or
 * is a note of its own (create). The verdict is already verified against `shown`.
 */
export async function judgeMerge(llm: StructuredLLM, candidate: Candidate, shown: ShownNote[], ctx: MergeContext = {}): Promise<JudgeResult<MergeVerdict>> {
  if (!shown.length) return { ok: true, value: { action: 'create', reason: 'no existing note was found' }, repairs: [], attempts: 0 };
  const allowSupersede = ctx.allowSupersede ?? true;
  const allowed = allowSupersede ? MERGE_ACTIONS : MERGE_ACTIONS.filter((a) => a !== 'supersede');
  const fields = {
    candidate: { kind: candidate.kind, topic: candidate.topic, title: candidate.title },
    shown: shown.map((n) => ({ id: n.id, path: n.path ?? null, title: n.title })),
  };
  return runJudge(
    llm,
    {
      call: 'merge',
      name: MERGE_CALL,
      description: 'record where the new memory belongs: merged into a shown note, superseding one, or a note of its own',
      schema: mergeSchema(allowSupersede),
      repair: repairMergeDecision(allowed),
      build: (a) => verifyMergeDecision(a as unknown as MergeDecision, shown, candidate.kind),
      traceResult: (v) => ({
        action: v.action,
        target: v.target?.id ?? null,
        reason: v.reason,
        overruled: v.overruled ?? null,
        ...(v.validFrom ? { valid_from: v.validFrom } : {}),
      }),
    },
    mergeMessages(candidate, shown, allowSupersede, ctx.today ?? isoDate(new Date(now()))),
    { ...ctx, trace: { ...fields, ...ctx.trace } },
  );
}
