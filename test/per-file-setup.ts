import fs from 'node:fs';
import { afterAll, afterEach, aroundAll, aroundEach, beforeAll, beforeEach } from 'vitest';
import { processIo, withContext, type RunContext } from '../src/context.js';
import { Settings } from '../src/settings.js';
import { removeTempDirs } from './helpers/corpus.js';

// Runs in every test file (the workers are reused between files, so a helper's own afterAll would run once).
afterAll(removeTempDirs);

// Library code runs in a call (`current` in src/context.ts fails outside one). A test that calls it
// directly does so in a call of the test's own: the test process's environment and output, and no
// adapter (a test that wants them builds its context with src/compose.ts).
const testCall = (): RunContext => ({ settings: new Settings(process.env), io: processIo });
aroundAll((run) => withContext(testCall(), run));
aroundEach((run) => withContext(testCall(), run));

// ZK_TEST_CPU=1: each test's CPU seconds on stderr (this worker's and that of the processes it
// waited for), to find what spends the suite's budget (docs/architecture.md#tests).
if (process.env.ZK_TEST_CPU) {
  const ticks = () =>
    fs
      .readFileSync('/proc/self/stat', 'utf8')
      .split(') ')[1]
      .split(' ')
      .slice(11, 15)
      .reduce((s, t) => s + Number(t), 0);
  let start = 0;
  let file = '';
  beforeEach((ctx) => {
    start = ticks();
    file = ctx.task.file?.name ?? file;
  });
  afterEach((ctx) => void process.stderr.write(`cpu ${((ticks() - start) / 100).toFixed(1)} s  ${ctx.task.file?.name} > ${ctx.task.name}\n`));
  // The file's own line: its tests may run at once (it.concurrent), so theirs may count the same seconds twice.
  let fileStart = 0;
  beforeAll(() => void (fileStart = ticks()));
  afterAll(() => void process.stderr.write(`cpu-file ${((ticks() - fileStart) / 100).toFixed(1)} s  ${file}\n`));
}
