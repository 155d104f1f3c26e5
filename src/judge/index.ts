export { PROMPT_VERSION, SHOWN_NOTE_CHARS, type ShownNote } from './prompts.js';
export {
  DISTILL_CALL,
  MERGE_CALL,
  SPLIT_CALL,
  MAX_SPLIT_FRAGMENTS,
  MERGE_ACTIONS,
  LIMITS,
  distillSchema,
  mergeSchema,
  splitSchema,
  type Candidate,
  type Distillation,
  type MergeAction,
  type MergeDecision,
  type SplitDecision,
  type SplitFragment,
} from './schemas.js';
export { judgeError, runJudge, type JudgeContext, type JudgeFailure, type JudgeResult, type JudgeSpec } from './call.js';
export { distill, distillSegments, candidateNoteName, type DistillContext } from './distill.js';
export { judgeMerge, verifyMergeDecision, shownNote, type MergeContext, type MergeVerdict } from './merge.js';
export { judgeSplit } from './split.js';
export { segmentText, segmentBlocks, segmentChars, DEFAULT_SEGMENT_CHARS } from './segment.js';
export { transcriptText, transcriptSegments, textSegments, transcriptBlocks, stripRecall, messageText, type InputMessage } from './transcript.js';
