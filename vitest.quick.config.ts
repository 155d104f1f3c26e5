import { defineConfig } from 'vitest/config';
import full from './vitest.config.js';

/**
 * `npm run test:quick`: the test files that run everything in the test's own process (the CLI
 * through `zk()`, the library, temp corpora, the real rg and LanceDB), for the inner loop. Files
 * that start processes (the built CLI, MCP over stdio or HTTP, the resident server, hooks, git
 * remotes, workers racing for the lock, a browser) are left to `npm test`, which runs every file.
 */
export const QUICK = [
  'archive-trace',
  'cli-core',
  'embed-fallback',
  'file-states',
  'format',
  'gardener',
  'hints',
  'index-location',
  'index-upkeep',
  'ingest-convert',
  'ingest-next',
  'ingest-windows',
  'integrate',
  'judge-segment',
  'judge',
  'kept-answers',
  'kept-facts',
  'kept-followers',
  'link-graphs',
  'shared-names',
  'links-forms',
  'llm-adapter',
  'llm-config',
  'manifest-log',
  'note-meta-cache',
  'operations',
  'ranking',
  'readme',
  'redact',
  'refs',
  'split',
  'supersede',
  'sync-merge',
  'tend-check',
  'tend-fix',
  'tend-headings',
  'title-slugs',
  'vector-embed',
  'warm-on-demand',
].map((name) => `test/${name}.test.ts`);

export default defineConfig({ ...full, test: { ...full.test, include: QUICK } });
