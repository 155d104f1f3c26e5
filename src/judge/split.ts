import { ZkError } from '../errors.js';
import type { StructuredLLM } from '../llm/types.js';
import { runJudge, type JudgeContext, type JudgeResult } from './call.js';
import { splitMessages, type ShownNote } from './prompts.js';
import { defaultText, isPlainObject, repairKind, repairSlug } from './repair.js';
import { MAX_SPLIT_FRAGMENTS, SPLIT_CALL, splitSchema, type SplitDecision, type SplitFragment } from './schemas.js';

function repairSplitDecision(answer: Record<string, unknown>, repairs: string[]): void {
  defaultText(answer, ['parent_summary']);
  if (typeof answer.split !== 'boolean') {
    repairs.push('split: missing; read as false');
    answer.split = false;
  }
  if (!answer.split) {
    if (Array.isArray(answer.fragments) && answer.fragments.length) repairs.push('fragments: ignored, split is false');
    answer.fragments = [];
    return;
  }
  if (!Array.isArray(answer.fragments)) return;
  answer.fragments.forEach((f: unknown, i: number) => {
    if (!isPlainObject(f)) return;
    repairKind(f, `fragments/${i}`, repairs);
    repairSlug(f, `fragments/${i}`, repairs, [f.title]);
  });
  if (answer.fragments.length < 2) {
    // One child beside a summary is no split at all; keeping the note whole is the safe reading.
    repairs.push(`split: only ${answer.fragments.length} fragment; read as not split`);
    answer.split = false;
    answer.fragments = [];
  }
}

function checkSplitDecision(answer: Record<string, unknown>): string[] {
  if (!answer.split) return [];
  const errors = answer.parent_summary ? [] : ['parent_summary: a split needs a summary for the parent'];
  (answer.fragments as SplitFragment[]).forEach((f, i) => {
    if (f.kind === 'decision' && !f.choice) errors.push(`fragments/${i}/choice: a decision needs the choice that was made`);
  });
  return errors;
}

/**
 * Ask whether a note that grew too big should become a summary parent plus at most `maxFragments`
 * children. More fragments than allowed are cut to the first `maxFragments` (traced).
 */
export async function judgeSplit(
  llm: StructuredLLM,
  note: ShownNote,
  maxFragments = MAX_SPLIT_FRAGMENTS,
  ctx: JudgeContext = {},
): Promise<JudgeResult<SplitDecision>> {
  if (!Number.isInteger(maxFragments) || maxFragments < 2) {
    throw new ZkError('usage', `--max-fragments takes a whole number >= 2, not ${maxFragments}`);
  }
  return runJudge(
    llm,
    {
      call: 'split',
      name: SPLIT_CALL,
      description: 'record whether the note should be split, and into what',
      schema: splitSchema(maxFragments),
      repair: repairSplitDecision,
      check: checkSplitDecision,
      build: (a) => a as unknown as SplitDecision,
    },
    splitMessages(note, maxFragments),
    { ...ctx, trace: { note: { id: note.id, path: note.path ?? null }, max_fragments: maxFragments, ...ctx.trace } },
  );
}
