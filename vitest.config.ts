import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/per-file-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A file per core: with four at once on two cores the suite took 366 s of wall and 633 s of CPU,
    // with two 396 s and 541 s, as the processes the tests start contend for the cores less.
    maxWorkers: 2,
    // A worker keeps its loaded modules from one test file to the next: loading the library and LanceDB
    // once per worker instead of once per file. Library code changes nothing the whole process shares
    // and keeps no state of its own at module level (test/architecture.test.ts checks both: process
    // state, and module-level `let`s), and the tests restore any environment they change.
    isolate: false,
    unstubEnvs: true,
  },
});
