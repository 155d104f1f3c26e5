import { execa } from 'execa';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempCorpus, tempDir, zk, zkProcess } from './helpers/corpus.js';
import { browserMissing, browserRequired, launchBrowser } from './helpers/browser.js';

// The viewer (docs/viewer.md) in a real browser: Debian's chromium, headless, against the corpus's
// resident server started by `zk-memory view`. Screenshots of each page go to the test's temp folder.

describe.runIf(browserRequired && browserMissing)('the browser tests, required here', () => {
  it('have a browser', () => expect.fail(`the viewer's browser tests could not run: ${browserMissing}`));
});

const HOSTILE = `Look: <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">.

[click me](javascript:window.__pwned=3) and <a href="javascript:window.__pwned=4">raw</a>

<iframe src="javascript:window.top.__pwned=5"></iframe><svg onload="window.__pwned=6"></svg>
`;

describe.skipIf(Boolean(browserMissing))('the viewer in a browser', () => {
  let browser: Browser;
  let root: string;
  let env: Record<string, string>;
  let base: string;
  let shots: string;
  /** A second corpus, with a server and viewer of its own. */
  let other: string | undefined;
  const run = (...args: string[]) => zk(['--root', root, ...args], { env });

  beforeAll(async () => {
    root = tempCorpus();
    shots = tempDir('zk-shots-');
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    env = { XDG_RUNTIME_DIR: runtime, ZK_MEMORY_SERVER: 'auto', ZK_MEMORY_BACKEND: 'fts' };
    await run(
      'write',
      'judy',
      'Judy',
      'Judy paints lake sunrises. She knows [Ben](20261201-ben.md).',
      '--date',
      '2026-12-01',
      '--kind',
      'entity_update',
      '--source',
      'phone',
    );
    await run('write', 'ben', 'Ben', 'Ben builds kayaks.', '--date', '2026-12-01', '--kind', 'entity_update');
    await run('merge', 'judy', 'Prefers oils to acrylics.', '--source', 'laptop');
    await run('write', 'judy-paris', 'Judy lives in Paris', 'Since October, in Montmartre.', '--supersedes', 'judy', '--kind', 'entity_update');
    await run('write', 'hostile', 'Hostile note', HOSTILE, '--date', '2026-12-01');
    await run(
      'write',
      'breakout',
      '</script><script>window.__pwned = 3</script>',
      'Its title tries to end the data block of the graph page.',
      '--date',
      '2026-12-01',
    );
    // a part split from Ben, as `split` leaves one
    const benUuid = /^uuid: (.+)$/m.exec(fs.readFileSync(path.join(root, '20261201-ben.md'), 'utf8'))![1];
    fs.writeFileSync(
      path.join(root, '20261201-ben-kayaks.md'),
      `---\nuuid: 1b0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a\ntitle: Ben's kayaks\ndate: 2026-12-01\nsplit_from: ${benUuid}\n---\n\n# Ben's kayaks\n\nCedar strip.\n\nPart of [Ben](20261201-ben.md)\n`,
    );
    await execa('git', ['init', '-q', '-b', 'main'], { cwd: root });
    await execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', 'commit', '-q', '--allow-empty', '-m', 'empty'], { cwd: root });
    await execa('git', ['add', '-A'], { cwd: root });
    await execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'Notes of the viewer test'], { cwd: root });
    // 10 MB, more than `write` takes: written as another program would
    fs.writeFileSync(
      path.join(root, '20261201-huge.md'),
      `---\nuuid: 0b0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a\ntitle: Huge note\n---\n\n# Huge note\n\n<script>window.__pwned = 7</script>\n\n${'A long line of plain words about rivers. '.repeat(25).concat('\n').repeat(10_000)}`,
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (root) await zk(['serve', '--stop', '--root', root], { env });
    if (other) await zk(['serve', '--stop', '--root', other], { env });
  });

  async function open(): Promise<Page> {
    const view = await zkProcess(['--root', root, 'view', '--no-open', '--json'], { env });
    expect(view.json, view.stderr).toMatchObject({ ok: true, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/\?launch=\S+$/), opened: false });
    base = new URL(view.json.url).origin;
    const page = await browser.newPage();
    await page.goto(view.json.url);
    return page;
  }

  it('searches as you type, opens a note, follows a link, a backlink and the chain of beliefs', async () => {
    const page = await open();
    expect(new URL(page.url()).pathname).toBe('/search');
    await page.keyboard.press('/');
    await page.keyboard.type('builds');
    await page.waitForFunction(() => document.body.dataset.renderedQuery === 'builds');
    const hits = await page.locator('#results a').allTextContents();
    expect(hits).toEqual(['Ben']);
    await page.screenshot({ path: path.join(shots, 'search.png') });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/note\/20261201-ben\.md$/);
    expect(await page.title()).toContain('Ben');
    expect(await page.locator('h1').textContent()).toBe('Ben');
    expect(await page.locator('#split a').allTextContents()).toEqual(["Ben's kayaks"]);
    expect(await page.locator('#history').textContent()).toContain('Notes of the viewer test');
    // a backlink: Judy links to Ben
    await page.locator('#backlinks a', { hasText: 'Judy' }).click();
    await page.waitForURL(/\/note\/20261201-judy\.md$/);
    expect(await page.locator('.superseded-by').textContent()).toContain('superseded by Judy lives in Paris');
    expect(await page.locator('#fragments .timeline li').count()).toBe(1);
    expect(await page.locator('#fragments').textContent()).toContain('laptop');
    await page.screenshot({ path: path.join(shots, 'note.png'), fullPage: true });
    // a link, then the chain forward
    expect(await page.locator('#links a').allTextContents()).toEqual(['Ben']);
    await page.locator('.superseded-by a').click();
    await page.waitForURL(/-judy-paris\.md$/);
    expect(await page.locator('h1').textContent()).toBe('Judy lives in Paris');
    expect(await page.locator('#chain a').allTextContents()).toEqual(['Judy']);
    expect(await page.locator('#trace').textContent()).toContain('supersede');
    for (const word of ['Graph', 'Recent', 'Health']) expect(await page.locator('nav a', { hasText: word }).count()).toBe(1);
    await page.close();
  });

  it('draws the graph around a note with the notes it links and is linked by', async () => {
    const page = await open();
    await page.goto(`${base}/graph?note=20261201-judy.md&hops=1`);
    await page.waitForFunction(() => Number(document.body.dataset.graphNodes) > 0);
    expect(await page.evaluate(() => Number(document.body.dataset.graphNodes))).toBe(3);
    await page.screenshot({ path: path.join(shots, 'graph.png') });
    // Its notes are links too, for the keyboard: open the list, go to a note, follow it.
    const list = page.locator('#graph-notes a');
    expect((await list.allTextContents()).sort()).toEqual(['Ben', 'Judy', 'Judy lives in Paris']);
    await page.locator('#graph-notes summary').focus();
    await page.keyboard.press('Enter');
    await page.locator('#graph-notes a', { hasText: 'Ben' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/note\/20261201-ben\.md$/);
    // An open graph follows the corpus: a note the CLI writes that links here is drawn and listed.
    await page.goto(`${base}/graph?note=20261201-judy.md&hops=1`);
    await page.waitForFunction(() => Number(document.body.dataset.graphNodes) === 3);
    await page.waitForTimeout(300); // the page's event stream is open
    await run('write', 'judy-friend', "Judy's friend", 'A friend of [Judy](20261201-judy.md).');
    await page.waitForFunction(() => Number(document.body.dataset.graphNodes) === 4, undefined, { timeout: 2000 });
    expect(await list.allTextContents()).toContain("Judy's friend");
    await page.goto(`${base}/graph`);
    await page.waitForFunction(() => Number(document.body.dataset.graphNodes) > 0);
    await page.close();
  });

  it('follows the system into dark mode', async () => {
    const page = await open();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(`${base}/note/20261201-judy.md`);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = background.match(/\d+/g)!.map(Number);
    expect(r + g + b).toBeLessThan(150);
    await page.screenshot({ path: path.join(shots, 'note-dark.png') });
    await page.close();
  });

  it('follows the corpus live: a note the CLI writes appears on an open page within two seconds', async () => {
    const page = await open();
    await page.goto(`${base}/recent`);
    expect(await page.locator('#recent a', { hasText: 'Canoe trip' }).count()).toBe(0);
    await page.waitForTimeout(300); // the page's event stream is open
    await run('write', 'canoe', 'Canoe trip', 'Paddled the lake.');
    await page.locator('#recent a', { hasText: 'Canoe trip' }).waitFor({ timeout: 2000 });
    await page.goto(`${base}/recent?source=phone`);
    expect(await page.locator('#recent a').allTextContents()).toEqual(['Judy']);
    await page.goto(`${base}/health`);
    expect(await page.locator('h2').allTextContents()).toEqual(expect.arrayContaining(['Inbox', 'Gardener', 'Server']));
    await page.close();
  });

  it('runs nothing a hostile note holds, and shows a 10 MB note as text', async () => {
    const page = await open();
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()).valueOf() && void d.dismiss());
    const response = await page.goto(`${base}/note/20261201-hostile.md`);
    expect(response!.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    expect(response!.headers()['access-control-allow-origin']).toBeUndefined();
    for (const link of await page.locator('article a').all()) await link.click({ timeout: 1000 }).catch(() => undefined);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('article script, article img, article iframe, article svg').count()).toBe(0);
    expect(dialogs).toEqual([]);
    // The overview holds every note of a small corpus, the one titled `</script><script>…` too.
    await page.goto(`${base}/graph`);
    await page.waitForFunction(() => Number(document.body.dataset.graphNodes) > 0);
    const notes = fs.readdirSync(root).filter((f) => f.endsWith('.md')).length;
    expect(await page.evaluate(() => Number(document.body.dataset.graphNodes))).toBe(notes);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const huge = await page.goto(`${base}/note/20261201-huge.md`);
    expect(huge!.status()).toBe(200);
    expect(await page.locator('h1').textContent()).toBe('Huge note');
    // its first megabyte, as text, and how much is left out
    const shown = (await page.locator('article pre.raw').textContent())!;
    expect(shown.length).toBeGreaterThan(900_000);
    expect(shown.length).toBeLessThanOrEqual(1_000_000);
    expect(shown).toContain('<script>window.__pwned = 7</script>');
    expect(await page.locator('article .cut').textContent()).toMatch(/^[\d,]+ more characters are in the note's file/);
    await page.close();
  });

  it('refuses what is not a read by its own pages: no cookie, a foreign Origin or Host, a write, a spent link', async () => {
    const view = await zkProcess(['--root', root, 'view', '--no-open', '--json'], { env });
    const launch = view.json.url as string;
    const first = await fetch(launch, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const session = cookie.split(';')[0];
    expect((await fetch(launch, { redirect: 'manual' })).status).toBe(401);
    const at = (p: string, init: RequestInit = {}) =>
      fetch(`${base}${p}`, { redirect: 'manual', ...init, headers: { cookie: session, ...(init.headers ?? {}) } });
    expect((await at('/search?q=judy')).status).toBe(200);
    // An asset the browser has is revalidated without its body.
    const script = await at('/assets/viewer.js');
    expect(script.status).toBe(200);
    expect((await at('/assets/viewer.js', { headers: { 'if-none-match': script.headers.get('etag')! } })).status).toBe(304);
    expect((await at('/assets/viewer.js', { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    expect((await fetch(`${base}/search?q=judy`)).status).toBe(401);
    expect((await at('/search?q=judy', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await at('/search', { method: 'POST', body: 'q=x' })).status).toBe(405);
    expect((await at('/api/search?q=judy', { method: 'DELETE' })).status).toBe(405);
    const before = fs.readdirSync(root).sort();
    expect((await at('/note/..%2F..%2Fetc%2Fpasswd')).status).toBe(404);
    expect(fs.readdirSync(root).sort()).toEqual(before);
  });
  it('keeps the sessions of two corpora apart, and no cookie another local service receives is taken by another viewer', async () => {
    other = tempCorpus();
    await zk(['--root', other, 'write', 'otter', 'Otter', 'Otters hold hands while they sleep.'], { env });
    const page = await open();
    const mine = base;
    const view = await zkProcess(['--root', other, 'view', '--no-open', '--json'], { env });
    const theirs = new URL(view.json.url).origin;
    expect(theirs).not.toBe(mine);
    expect((await page.goto(view.json.url))!.status()).toBe(200);
    // Opening the other corpus's viewer did not log this browser out of the first.
    expect((await page.goto(`${mine}/recent`))!.status()).toBe(200);
    expect((await page.goto(`${theirs}/recent`))!.status()).toBe(200);
    expect(await page.locator('#recent a').allTextContents()).toEqual(['Otter']);
    // A plain web service on another port of 127.0.0.1, visited by the same browser, is sent the viewers' cookies.
    const received: string[] = [];
    const service = http.createServer((req, res) => {
      received.push(req.headers.cookie ?? '');
      res.end('another service');
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(service.address() as net.AddressInfo).port}/`);
    } finally {
      service.closeAllConnections();
      await new Promise((resolve) => service.close(resolve));
    }
    await page.close();
    const cookies = received[0]
      .split(';')
      .map((c) => c.trim())
      .filter(Boolean)
      .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)]);
    expect(cookies).toHaveLength(2);
    const taken = async (at: string, name: string, value: string) =>
      (await fetch(`${at}/recent`, { redirect: 'manual', headers: { cookie: `${name}=${value}` } })).status;
    // Each value is taken by its own viewer under its own name only: never by the other viewer,
    // under either name, so a cookie replayed from another service opens no other corpus.
    const accepted: string[] = [];
    for (const [name, value] of cookies) {
      for (const at of [mine, theirs]) {
        for (const [asName] of cookies) {
          const status = await taken(at, asName, value);
          expect([200, 401]).toContain(status);
          if (status === 200) accepted.push(`${name}@${at} as ${asName}`);
        }
      }
    }
    expect(accepted).toHaveLength(2);
    expect(accepted.every((a) => a.endsWith(`as ${a.split('@')[0]}`))).toBe(true);
    expect(new Set(accepted.map((a) => a.split('@')[1].split(' ')[0])).size).toBe(2);
  });

  it('answers a bad parameter with 400 and what was wrong, and offers only the backends that work here', async () => {
    const page = await open();
    // No embedding endpoint is configured: vector and hybrid are not offered.
    expect(await page.locator('#backend option').allTextContents()).toEqual(['auto', 'rg', 'fts']);
    const bad = await page.goto(`${base}/search?q=judy&backend=bogus`);
    expect(bad!.status()).toBe(400);
    expect(await page.locator('main').textContent()).toContain('unknown search backend: "bogus"');
    const vector = await page.goto(`${base}/search?q=judy&backend=vector`);
    expect(vector!.status()).toBe(400);
    expect(await page.locator('main').textContent()).toContain('needs an embedder');
    const api = await page.goto(`${base}/api/search?q=judy&backend=hybrid`);
    expect(api!.status()).toBe(400);
    expect(JSON.parse(await api!.text())).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringContaining('needs an embedder') } });
    expect((await page.goto(`${base}/graph?hops=9`))!.status()).toBe(400);
    expect((await page.goto(`${base}/note/%E0%A4%A.md`))!.status()).toBe(400);
    expect((await page.goto(`${base}/recent?kind=bogus`))!.status()).toBe(400);
    expect(await page.locator('main').textContent()).toContain('unknown kind: "bogus"');
    await page.close();
  });
});

describe("the search page's backends", () => {
  it('offers vector and hybrid when an embedder is there: the built-in one, or an endpoint', async () => {
    const { withContext } = await import('../src/context.js');
    const { Settings } = await import('../src/settings.js');
    const { searchPage } = await import('../src/viewer/pages.js');
    const root = tempCorpus();
    const io = { stdout: () => {}, stderr: () => {}, stdin: () => undefined, cwd: () => root };
    const options = async (vars: Record<string, string>) => {
      const page = await withContext({ settings: new Settings(vars), io }, () => searchPage(root, '', undefined));
      return [...page.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]);
    };
    expect(await options({ ZK_MEMORY_EMBED: 'off' })).toEqual(['auto', 'rg', 'fts']);
    expect(await options({})).toEqual(['auto', 'rg', 'fts', 'vector', 'hybrid']);
    expect(await options({ ZK_MEMORY_EMBED: 'off', ZK_MEMORY_EMBED_BASE: 'http://127.0.0.1:9/v1', ZK_MEMORY_EMBED_MODEL: 'nomic-embed-text' })).toEqual([
      'auto',
      'rg',
      'fts',
      'vector',
      'hybrid',
    ]);
  });
});

describe('a viewer session', () => {
  it('is taken only by the viewer that made it: not on another port, for another corpus, or after a restart', async () => {
    const { ViewerAccess } = await import('../src/viewer/access.js');
    const viewer = new ViewerAccess(40001, '/home/judy/notes');
    const session = viewer.open(viewer.launch())!;
    expect(viewer.admits(`other=1; ${viewer.cookieName}=${session}`)).toBe(true);
    expect(viewer.open('never-made')).toBeUndefined();
    const [id] = session.split('.');
    for (const forged of [id, `${id}.`, `${id}.${'A'.repeat(43)}`, `${session}.x`, `x${session}`])
      expect(viewer.admits(`${viewer.cookieName}=${forged}`)).toBe(false);
    for (const elsewhere of [
      new ViewerAccess(40002, '/home/judy/notes'),
      new ViewerAccess(40001, '/home/judy/other'),
      new ViewerAccess(40001, '/home/judy/notes'),
    ]) {
      expect(elsewhere.admits(`${elsewhere.cookieName}=${session}`)).toBe(false);
      expect(elsewhere.admits(`${viewer.cookieName}=${session}`)).toBe(false);
    }
    expect(new ViewerAccess(40002, '/home/judy/notes').cookieName).not.toBe(viewer.cookieName);
    expect(new ViewerAccess(40001, '/home/judy/other').cookieName).not.toBe(viewer.cookieName);
  });
});
