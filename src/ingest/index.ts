// Agent-driven study of source documents: the tool keeps the place, the agent writes the notes.
export { startJob, type StartOptions, type StartResult } from './start.js';
export { nextWindow, type NextOptions, type NextResult } from './next.js';
export { acceptWindow, skipWindow, type AcceptOptions, type AcceptResult } from './accept.js';
export { jobStatus, type JobStatus } from './status.js';
export { planWindows, DEFAULT_WINDOW_CHARS, type Window } from './windows.js';
export { convertDocument, documentKind, type DocumentKind } from './convert.js';
export { listJobs } from './state.js';
