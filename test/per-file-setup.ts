import fs from 'node:fs';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { removeTempDirs } from './helpers/corpus.js';

// Runs in every test file (the workers are reused between files, so a helper's own afterAll would run once).
afterAll(removeTempDirs);

// ZK_TEST_CPU=1: each test's CPU seconds on stderr (this worker's and that of the processes it
// waited for), to find what spends the suite's budget (docs/architecture.md#tests).
if (process.env.ZK_TEST_CPU) {
  const ticks = () => fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ').slice(11, 15).reduce((s, t) => s + Number(t), 0);
  let start = 0;
  beforeEach(() => void (start = ticks()));
  afterEach((ctx) => void process.stderr.write(`cpu ${((ticks() - start) / 100).toFixed(1)} s  ${ctx.task.file?.name} > ${ctx.task.name}\n`));
}
