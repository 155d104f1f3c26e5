import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/corpus.js';

// Runs in every test file (the workers are reused between files, so a helper's own afterAll would run once).
afterAll(removeTempDirs);
