import { execa } from 'execa';
import fs from 'node:fs';
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
  const run = (...args: string[]) => zk(['--root', root, ...args], { env });

  beforeAll(async () => {
    root = tempCorpus();
    shots = tempDir('zk-shots-');
    const runtime = tempDir('zk-rt-');
    fs.chmodSync(runtime, 0o700);
    env = { XDG_RUNTIME_DIR: runtime, ZK_MEMORY_SERVER: 'auto', ZK_MEMORY_BACKEND: 'fts' };
    await run('write', 'judy', 'Judy', 'Judy paints lake sunrises. She knows [Ben](20261201-ben.md).', '--date', '2026-12-01', '--kind', 'entity_update', '--source', 'phone');
    await run('write', 'ben', 'Ben', 'Ben builds kayaks.', '--date', '2026-12-01', '--kind', 'entity_update');
    await run('merge', 'judy', 'Prefers oils to acrylics.', '--source', 'laptop');
    await run('write', 'judy-paris', 'Judy lives in Paris', 'Since October, in Montmartre.', '--supersedes', 'judy', '--kind', 'entity_update');
    await run('write', 'hostile', 'Hostile note', HOSTILE, '--date', '2026-12-01');
    await run('write', 'breakout', '</script><script>window.__pwned = 3</script>', 'Its title tries to end the data block of the graph page.', '--date', '2026-12-01');
    // a part split from Ben, as `split` leaves one
    const benUuid = /^uuid: (.+)$/m.exec(fs.readFileSync(path.join(root, '20261201-ben.md'), 'utf8'))![1];
    fs.writeFileSync(path.join(root, '20261201-ben-kayaks.md'), `---\nuuid: 1b0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a\ntitle: Ben's kayaks\ndate: 2026-12-01\nsplit_from: ${benUuid}\n---\n\n# Ben's kayaks\n\nCedar strip.\n\nPart of [Ben](20261201-ben.md)\n`);
    await execa('git', ['init', '-q', '-b', 'main'], { cwd: root });
    await execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', 'commit', '-q', '--allow-empty', '-m', 'empty'], { cwd: root });
    await execa('git', ['add', '-A'], { cwd: root });
    await execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', 'commit', '-q', '-m', 'Notes of the viewer test'], { cwd: root });
    // 10 MB, more than `write` takes: written as another program would
    fs.writeFileSync(path.join(root, '20261201-huge.md'), `---\nuuid: 0b0c8a4e-5b7d-4a39-9a51-0f2b8c1d7e6a\ntitle: Huge note\n---\n\n# Huge note\n\n<script>window.__pwned = 7</script>\n\n${'A long line of plain words about rivers. '.repeat(25).concat('\n').repeat(10_000)}`);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (root) await zkProcess(['serve', '--stop', '--root', root], { env });
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
    await run('write', 'judy-friend', 'Judy\'s friend', 'A friend of [Judy](20261201-judy.md).');
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
    const at = (p: string, init: RequestInit = {}) => fetch(`${base}${p}`, { redirect: 'manual', ...init, headers: { cookie: session, ...(init.headers ?? {}) } });
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
});
