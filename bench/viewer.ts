import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, launchBrowser } from './browser.js';

// The browser viewer (docs/viewer.md) in headless Chromium, on a warm resident server: `zk-memory
// view --no-open --json` starts the corpus's server in the background and prints a launch link,
// which the browser trades for its session cookie. Every page is visited once untimed first (the
// server's index and caches, the browser's asset cache), then each case is measured `runs` times.
// Times are taken in the page's own clock (Navigation and Resource Timing, performance.now()), so
// the round trips between this process and the browser do not count.
//
// The goals (docs/performance.md#the-viewer): first load of the search page ≤ 1 s, a search as
// you type ≤ 100 ms from the last keystroke to its results painted, a note page ≤ 300 ms, a 2-hop
// graph ≤ 500 ms drawn.

export interface ViewerCase {
  case: string;
  /** The goal in ms, or null for a case measured without one. */
  goal: number | null;
  p50: number;
  p90: number;
  n: number;
}

export interface ViewerFigures {
  cases: ViewerCase[];
  /** Where the time goes (server answer vs the page's own work), and what was drawn. */
  detail: Record<string, string>;
}

/** The 2-hop graphs are drawn around these notes: the most linked one, and a few of the long tail. */
const GRAPH_NOTES = [0, 3, 100, 2500, 9000];
/** Note pages: the most linked note and a spread of others. */
const NOTE_PAGES = [0, 7, 150, 1234, 4321, 8765, 9999];
/** Real words of the generated notes (bench/generate.ts), typed a key at a time. */
const QUERIES = ['kayak glacier sunrise', 'river pipeline', 'Priya rollback export', 'medicine recipe', 'birthday painting'];
/** The pause between keys while typing (a quick typist); the debounce of web/search.ts is 25 ms. */
const KEY_DELAY_MS = 80;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const r1 = (x: number) => Math.round(x * 10) / 10;

/** The generated note `i` of a corpus, as bench/generate.ts names it. */
const noteFile = (root: string, i: number) => {
  const f = `2026${String(1 + (i % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}-note-${i}.md`;
  return fs.existsSync(path.join(root, f)) ? f : undefined;
};

// In every page of the context: the first time the search results or the graph are on the page,
// and the frame after (rAF, then a task: the frame has been painted), in the page's clock.
const PAGE_PROBE = `(() => {
  const seen = {};
  window.__zkBench = seen;
  new MutationObserver((records) => {
    for (const r of records) {
      const name = r.attributeName;
      if (!name || seen[name]) continue;
      const at = performance.now();
      seen[name] = { at, painted: null };
      requestAnimationFrame(() => setTimeout(() => { seen[name].painted = performance.now(); }, 0));
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-graph-nodes'] });
})();`;

interface Loaded {
  /** Navigation start to the end of the load event. */
  load: number;
  /** The HTML document's request start to its last byte (the server's page). */
  doc: number;
}

async function loadTimes(page: Page): Promise<Loaded> {
  await page.waitForFunction(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.loadEventEnd, undefined, {
    timeout: 120_000,
  });
  return page.evaluate(() => {
    const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    return { load: n.loadEventEnd - n.startTime, doc: n.responseEnd - n.requestStart };
  });
}

/** Open `url` in a fresh page of `context`, to its load event; the page is closed after. */
async function firstLoad(context: BrowserContext, url: string, then?: (page: Page) => Promise<void>): Promise<Loaded> {
  const page = await context.newPage();
  try {
    const res = await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    if (!res || res.status() !== 200) throw new Error(`${url} answered ${res?.status()}`);
    const t = await loadTimes(page);
    await then?.(page);
    return t;
  } finally {
    await page.close();
  }
}

interface Drawn {
  /** Navigation start to the graph drawn and its frame painted. */
  drawn: number;
  /** The page's HTML, with the data of its drawing: request start to last byte (the server's part). */
  doc: number;
  /** Navigation start to the data in the script's hands (the page, its styles and script). */
  page: number;
  /** From the data in hand to the graph drawn (layout and sigma). */
  layout: number;
  /** From the graph drawn to its frame painted. */
  paint: number;
  nodes: number;
}

async function graphTimes(context: BrowserContext, url: string): Promise<Drawn> {
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
    await page.waitForFunction(() => (window as any).__zkBench?.['data-graph-nodes']?.painted != null, undefined, { timeout: 120_000 });
    const t = await page.evaluate(() => {
      const seen = (window as any).__zkBench['data-graph-nodes'] as { at: number; painted: number };
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const data = performance.getEntriesByName('graph-data', 'mark')[0]?.startTime ?? NaN;
      return { painted: seen.painted, at: seen.at, data, doc: nav.responseEnd - nav.requestStart, nodes: Number(document.body.dataset.graphNodes) };
    });
    if (!(t.nodes > 0)) throw new Error(`${url}: no graph drawn (${t.nodes} nodes; WebGL?)`);
    const message = await page.$('.graph-message');
    if (message) throw new Error(`${url}: ${await message.textContent()}`);
    return { drawn: t.painted, doc: t.doc, page: t.data, layout: t.at - t.data, paint: t.painted - t.at, nodes: t.nodes };
  } finally {
    await page.close();
  }
}

interface Typed {
  /** The last keystroke (its keydown) to the results of the whole query painted. */
  ms: number;
  /** /api/search for the whole query: request start to last byte. */
  api: number;
}

/**
 * Type `query` into the search box of `page` (emptied first), a key every KEY_DELAY_MS; with
 * `settle`, the results of all but the last key are awaited before the last key is pressed.
 */
async function typeQuery(page: Page, query: string, settle: boolean): Promise<Typed> {
  await page.fill('#q', '');
  await page.waitForFunction(() => document.body.dataset.renderedQuery === '');
  await page.evaluate(() => performance.clearResourceTimings());
  await page.focus('#q');
  const head = query.slice(0, -1);
  const last = query.slice(-1);
  await page.keyboard.type(head, { delay: KEY_DELAY_MS });
  if (settle) await page.waitForFunction((q) => document.body.dataset.renderedQuery === q, head, { timeout: 60_000 });
  await page.evaluate((q) => {
    (window as any).__zkTyped = new Promise((resolve) => {
      let key = NaN;
      document.addEventListener('keydown', (e) => void (key = e.timeStamp), { capture: true, once: true });
      const seen = new MutationObserver(() => {
        if (document.body.dataset.renderedQuery !== q) return;
        seen.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve({ key, painted: performance.now() }), 0));
      });
      seen.observe(document.body, { attributes: true, attributeFilter: ['data-rendered-query'] });
    });
  }, query);
  if (!settle) await new Promise((r) => setTimeout(r, KEY_DELAY_MS));
  await page.keyboard.press(last);
  const t = await page.evaluate(async (q) => {
    const { key, painted } = (await (window as any).__zkTyped) as { key: number; painted: number };
    const api = performance
      .getEntriesByType('resource')
      .filter((e) => {
        const u = new URL(e.name);
        return u.pathname === '/api/search' && u.searchParams.get('q') === q;
      })
      .pop() as PerformanceResourceTiming | undefined;
    const hits = document.querySelectorAll('#results li.hit').length;
    return { ms: painted - key, api: api ? api.responseEnd - api.requestStart : NaN, hits };
  }, query);
  if (!Number.isFinite(t.ms)) throw new Error(`typing ${JSON.stringify(query)}: no keystroke seen`);
  if (t.hits === 0) throw new Error(`typing ${JSON.stringify(query)}: no results painted`);
  return { ms: t.ms, api: t.api };
}

/** Start the viewer of `root` through `bin view`, and measure its pages in Chromium `runs` times each. */
export async function viewerLoad(bin: string, root: string, env: NodeJS.ProcessEnv, runs: number): Promise<ViewerFigures | string> {
  if (!fs.existsSync(CHROMIUM)) return `no browser at ${CHROMIUM}`;
  const hub = noteFile(root, 0);
  if (!hub) throw new Error(`${root} is not a generated corpus (no note 0)`);
  const viewEnv = { ...env, ZK_MEMORY_SERVER: 'auto' };
  const stop = () => spawnSync('node', [bin, 'serve', '--stop', '--root', root], { env: viewEnv, encoding: 'utf8' });
  let browser: Browser | undefined;
  try {
    const view = spawnSync('node', [bin, '--root', root, 'view', '--no-open', '--json'], { env: viewEnv, encoding: 'utf8' });
    let launch: string;
    try {
      launch = JSON.parse(view.stdout).url;
      if (typeof launch !== 'string') throw new Error('no url');
    } catch {
      throw new Error(`view --no-open --json said: ${view.stdout}${view.stderr}`);
    }
    const base = new URL(launch).origin;
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addInitScript(PAGE_PROBE);
    const page = await context.newPage();
    const landed = await page.goto(launch, { waitUntil: 'load', timeout: 120_000 });
    if (!landed || landed.status() !== 200 || !page.url().startsWith(`${base}/search`))
      throw new Error(`the launch link led to ${page.url()} (${landed?.status()})`);

    const notes = NOTE_PAGES.map((i) => noteFile(root, i)).filter((f): f is string => !!f);
    const graphs = GRAPH_NOTES.map((i) => noteFile(root, i)).filter((f): f is string => !!f);
    const noteUrl = (f: string) => `${base}/note/${encodeURIComponent(f)}`;
    const graphUrl = (f?: string) => (f ? `${base}/graph?note=${encodeURIComponent(f)}&hops=2` : `${base}/graph`);

    // Warm-up, untimed: one of each page (the first search builds or opens the server's index).
    for (const q of QUERIES) await typeQuery(page, q, true);
    await firstLoad(context, `${base}/search`);
    for (const f of notes) await firstLoad(context, noteUrl(f));
    for (const f of graphs) await graphTimes(context, graphUrl(f));
    await graphTimes(context, graphUrl());
    await firstLoad(context, `${base}/recent`);

    const cases: ViewerCase[] = [];
    const detail: Record<string, string> = {};
    const add = (name: string, goal: number | null, xs: number[]) =>
      cases.push({ case: name, goal, p50: r1(quantile(xs, 0.5)), p90: r1(quantile(xs, 0.9)), n: xs.length });
    const split = (xs: number[]) => `p50 ${r1(quantile(xs, 0.5))} p90 ${r1(quantile(xs, 0.9))}`;

    // (a) First load of the search page: a new tab, the session cookie kept.
    const searchLoads: Loaded[] = [];
    for (let i = 0; i < runs; i++) searchLoads.push(await firstLoad(context, `${base}/search`));
    add(
      'search page, first load (navigation start to load event)',
      1000,
      searchLoads.map((t) => t.load),
    );
    detail.search_page_html_ms = split(searchLoads.map((t) => t.doc));

    // (b) Search as you type, both while typing on (the last key 80 ms after the one before) and
    // as one more key after a pause (the results of the rest already on the page).
    for (const settle of [false, true]) {
      const typed: Typed[] = [];
      for (let i = 0; i < 2 * runs; i++) typed.push(await typeQuery(page, QUERIES[i % QUERIES.length], settle));
      const name = settle
        ? 'search as you type, one key after a pause (keydown to results painted)'
        : `search as you type, a key every ${KEY_DELAY_MS} ms (last keydown to results painted)`;
      add(
        name,
        100,
        typed.map((t) => t.ms),
      );
      detail[settle ? 'typed_after_pause_api_search_ms' : 'typed_on_api_search_ms'] = split(typed.map((t) => t.api).filter(Number.isFinite));
    }

    // (c) Note pages: the most linked note, and a spread of others.
    const hubLoads: Loaded[] = [];
    const noteLoads: Loaded[] = [];
    for (let i = 0; i < runs; i++) {
      hubLoads.push(await firstLoad(context, noteUrl(hub)));
      for (const f of notes.filter((n) => n !== hub)) noteLoads.push(await firstLoad(context, noteUrl(f)));
    }
    add(
      `note page, ${notes.length - 1} notes of the long tail (to load event)`,
      300,
      noteLoads.map((t) => t.load),
    );
    add(
      'note page, the most linked note (to load event)',
      300,
      hubLoads.map((t) => t.load),
    );
    detail.note_page_html_ms = split(noteLoads.map((t) => t.doc));
    detail.note_page_most_linked_html_ms = split(hubLoads.map((t) => t.doc));

    // (d) 2-hop graphs, to the graph drawn; (e) the overview.
    const graphDetail = (key: string, drawn: Drawn[]) => {
      detail[`${key}_page_html_ms`] = split(drawn.map((t) => t.doc));
      detail[`${key}_data_in_hand_ms`] = split(drawn.map((t) => t.page));
      detail[`${key}_layout_and_draw_ms`] = split(drawn.map((t) => t.layout));
      detail[`${key}_paint_ms`] = split(drawn.map((t) => t.paint));
    };
    for (const [name, files] of [
      ['the most linked note', [hub]],
      [`${graphs.length - 1} notes of the long tail`, graphs.filter((g) => g !== hub)],
    ] as const) {
      const drawn: Drawn[] = [];
      for (let i = 0; i < runs; i++) for (const f of files) drawn.push(await graphTimes(context, graphUrl(f)));
      add(
        `graph, 2 hops around ${name} (navigation start to drawn)`,
        500,
        drawn.map((t) => t.drawn),
      );
      const key = files.length === 1 ? 'graph_2hops_most_linked' : 'graph_2hops_long_tail';
      graphDetail(key, drawn);
      detail[`${key}_nodes`] = [...new Set(drawn.map((t) => t.nodes))].join(' ');
    }
    const overview: Drawn[] = [];
    for (let i = 0; i < runs; i++) overview.push(await graphTimes(context, graphUrl()));
    add(
      'graph, overview of the whole corpus (navigation start to drawn)',
      null,
      overview.map((t) => t.drawn),
    );
    graphDetail('graph_overview', overview);
    detail.graph_overview_nodes = String(overview[0].nodes);

    const recent: Loaded[] = [];
    for (let i = 0; i < runs; i++) recent.push(await firstLoad(context, `${base}/recent`));
    add(
      'recent page, first load (to load event)',
      null,
      recent.map((t) => t.load),
    );

    detail.search_backend = await page.evaluate(async () => ((await (await fetch('/api/search?q=kayak')).json()) as { backend: string }).backend);
    return { cases, detail };
  } finally {
    await browser?.close();
    const stopped = stop();
    if (stopped.status !== 0) process.stderr.write(`warning: serve --stop --root ${root}: ${stopped.stdout}${stopped.stderr}\n`);
  }
}
