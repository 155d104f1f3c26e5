import { chromium, type Browser } from 'playwright-core';

// Debian's chromium, driven headless by playwright-core: the browser of the viewer's bench and of
// its tests (test/helpers/browser.ts).

export const CHROMIUM = process.env.ZK_MEMORY_CHROMIUM ?? '/usr/bin/chromium';

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
