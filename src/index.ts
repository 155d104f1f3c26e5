// The importable library: every function takes an explicit corpus root.
export { ZkError, EXIT } from './errors.js';
export { initCorpus, writeNote, mergeNote, readNote, listNotes, retireNote, noteLinks } from './corpus/ops.js';
export { resolveRef } from './corpus/refs.js';
export { loadNotes, noteInfo, type Note, type NoteInfo } from './corpus/notes.js';
export { slugify } from './corpus/slug.js';
export { parseLinks, type Link } from './corpus/links.js';
export { withCorpusLock } from './corpus/lock.js';
export { archiveNote } from './corpus/archive.js';
export { trace } from './corpus/trace.js';
export { resolveRoot } from './corpus/root.js';
export { splitNote, fragmentCap, type SplitOptions, type SplitResult } from './pipelines/split.js';
export { splitCandidates } from './pipelines/split-candidates.js';
export { tendWrites, type GardenOptions, type GardenReport, type GardenRow } from './pipelines/gardener.js';
export { tendCheck, tendMint, tendRepair, tendRobustify, type TendReport } from './tend/run.js';
export * from './llm/index.js';
export * from './judge/index.js';
export { startJob, nextWindow, acceptWindow, skipWindow, jobStatus, planWindows, type NextResult, type AcceptResult, type JobStatus } from './ingest/index.js';
