// The library's operations: every surface (the CLI, the MCP server, a program importing the
// library) calls these with typed options and gets back the objects `--json` prints.
export type * from './results.js';
export * from './notes.js';
export * from './read.js';
export * from './search.js';
export * from './tend.js';
export * from './judged.js';
export * from './ingest.js';
export * from './corpus.js';
export * from './history.js';
export * from './tokens.js';
export * from './sync.js';
export * from './import.js';
export * from './context.js';
