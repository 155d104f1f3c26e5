import fs from 'node:fs';
import { CHROMIUM } from '../../bench/browser.js';

// Debian's chromium, driven headless by playwright-core: the browser the viewer's tests use. CI sets
// ZK_MEMORY_REQUIRE_BROWSER where it installed it: there a missing browser fails the run.

export { CHROMIUM, launchBrowser } from '../../bench/browser.js';
export const browserMissing = fs.existsSync(CHROMIUM) ? undefined : `no browser at ${CHROMIUM}`;
export const browserRequired = process.env.ZK_MEMORY_REQUIRE_BROWSER === '1';
