import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

// Debian's chromium, driven headless by playwright-core: the browser the viewer's tests use. CI sets
// ZK_MEMORY_REQUIRE_BROWSER where it installed it: there a missing browser fails the run.

export const CHROMIUM = process.env.ZK_MEMORY_CHROMIUM ?? '/usr/bin/chromium';
export const browserMissing = fs.existsSync(CHROMIUM) ? undefined : `no browser at ${CHROMIUM}`;
export const browserRequired = process.env.ZK_MEMORY_REQUIRE_BROWSER === '1';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    // As root in a container chromium needs --no-sandbox; the rest keeps it off a network it cannot reach.
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
    ],
  });
}
