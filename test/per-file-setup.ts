import { afterAll, aroundAll, aroundEach } from 'vitest';
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
