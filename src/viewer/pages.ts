import { search, searchBackends } from '../api/search.js';
import { inbox } from '../api/corpus.js';
import { tend } from '../api/tend.js';
import type { ServerState } from '../api/results.js';
import { backendInForce, gardenerPass, KINDS, recentNotes } from '../api/browse.js';
import { esc, layout, meta, noteHref, noteLink } from './html.js';
import type { GraphAnswer } from './graph-data.js';

// The search, recent, health and graph pages (docs/viewer.md). Each reads through the library,
// the same calls the command line makes.

/** How many hits a search page shows. */
const HITS = 20;

export interface SearchAnswer {
  ok: true;
  backend: string;
  hits: {
    path: string;
    title: string;
    date: string;
    kind: string | null;
    author: string | null;
    snippet: string;
    superseded_by: string | null;
    href: string;
  }[];
}

/** A search as the page and its script show it; nothing for an empty query. */
export async function searchAnswer(root: string, q: string, backend?: string): Promise<SearchAnswer> {
  if (!q.trim()) return { ok: true, backend: backendInForce(backend), hits: [] };
  const r = await search(root, q, { backend: backend || undefined, limit: HITS });
  const hits = r.hits.map((h) => ({
    path: h.path,
    title: h.title,
    date: h.updated || h.date,
    kind: h.kind,
    author: h.author,
    snippet: h.snippet,
    superseded_by: h.superseded_by,
    href: noteHref(h.path),
  }));
  return { ok: true, backend: r.backend, hits };
}

function hitItem(h: SearchAnswer['hits'][number]): string {
  return `<li class="hit"><a href="${esc(h.href)}">${esc(h.title)}</a> <span class="meta">${meta({ date: h.date, kind: h.kind, author: h.author })}</span><p class="snippet">${esc(h.snippet)}</p></li>`;
}

export async function searchPage(root: string, q: string, backend: string | undefined): Promise<string> {
  const answer = await searchAnswer(root, q, backend);
  const chosen = backend || 'auto';
  // Only the backends that can answer here: vector and hybrid need an embedding endpoint.
  const options = (await searchBackends()).map((b) => `<option value="${b}"${b === chosen ? ' selected' : ''}>${b}</option>`).join('');
  const results = q.trim()
    ? answer.hits.length
      ? answer.hits.map(hitItem).join('\n')
      : `<li class="none">No note matches ${esc(JSON.stringify(q))}.</li>`
    : '';
  const main = `<h1>Search</h1>
<form id="search-form" action="/search" method="get" role="search">
<input type="search" id="q" name="q" value="${esc(q)}" placeholder="Search the memory (press /)" autocomplete="off">
<label>backend <select id="backend" name="backend">${options}</select></label>
<button type="submit">Search</button>
</form>
<p class="meta" id="backend-used">${q.trim() ? `answered by ${esc(answer.backend)}` : `backend in force: ${esc(backendInForce(backend))}`}</p>
<ol id="results">
${results}
</ol>`;
  return layout({ title: q.trim() ? `${q} — Search` : 'Search', page: 'search', main });
}

/** How many notes the recent page lists. */
const RECENT = 100;

export function recentPage(root: string, o: { source?: string; kind?: string }): string {
  const { notes: shown, sources, total } = recentNotes(root, { ...o, max: RECENT });
  const select = (name: string, values: readonly string[], chosen?: string) =>
    `<select name="${name}"><option value="">any</option>${values.map((v) => `<option value="${esc(v)}"${v === chosen ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select>`;
  const rows = shown.map(
    (n) =>
      `<li>${noteLink(n.path, n.title, n.superseded_by ? 'superseded' : '')} <span class="meta">changed ${esc(n.changed)} · ${meta(n)}${n.superseded_by ? ' · superseded' : ''}</span></li>`,
  );
  const main = `<h1>Recent</h1>
<form id="recent-form" action="/recent" method="get"><label>source ${select('source', sources, o.source)}</label> <label>kind ${select('kind', KINDS, o.kind)}</label> <button type="submit">Show</button></form>
<p class="meta">${shown.length} of ${total} notes, the most recently changed first</p>
<ol id="recent">${rows.join('\n')}</ol>`;
  return layout({ title: 'Recent', page: 'recent', main });
}

export async function healthPage(root: string, server: ServerState): Promise<string> {
  const box = inbox(root);
  const pass = gardenerPass(root);
  const check = await tend(root, 'check');
  const problems = check.findings.filter((f) => f.verdict !== 'ok' && f.verdict !== 'unanchored');
  const inboxItems = box.files.map(
    (f) =>
      `<li><code>${esc(f.file)}</code> <span class="meta">${esc(f.created)}${f.source ? ` · ${esc(f.source)}` : ''}</span>: ${esc(f.reason)} (${f.items.length} item${f.items.length === 1 ? '' : 's'})</li>`,
  );
  const findings = problems
    .slice(0, 200)
    .map(
      (f) =>
        `<li class="${esc(f.verdict)}"><strong>${esc(f.verdict)}</strong> <a href="${esc(noteHref(f.file))}">${esc(f.file)}</a>:${f.line} ${esc(f.label)} → ${esc(f.target)}${f.reason ? ` <span class="why">${esc(f.reason)}</span>` : ''}</li>`,
    );
  const counts = Object.entries(check.counts)
    .map(([k, v]) => `${esc(k)} ${v}`)
    .join(', ');
  const main = `<h1>Health</h1>
<section id="inbox"><h2>Inbox</h2><p>${box.items} item${box.items === 1 ? '' : 's'} waiting for an LLM.</p>${inboxItems.length ? `<ul>${inboxItems.join('')}</ul>` : ''}</section>
<section id="gardener"><h2>Gardener</h2>${
    pass
      ? `<p>Last pass ${esc(pass.started)} – ${esc(pass.finished)} on ${esc(pass.host)}: ${esc(
          Object.entries(pass.summary)
            .map(([k, v]) => `${k} ${v}`)
            .join(', '),
        )}</p>`
      : '<p>No gardener pass yet.</p>'
  }</section>
<section id="tend"><h2>Links and beliefs</h2><p>tend check: ${counts}</p>${findings.length ? `<ul>${findings.join('')}</ul>` : '<p>Nothing to mend.</p>'}</section>
<section id="server"><h2>Server</h2><p>pid ${server.pid}, since ${esc(server.since)}, ${server.rss} MB resident${server.background ? ', started in the background' : ''}.</p></section>`;
  return layout({ title: 'Health', page: 'health', main });
}

/** The graph's notes as links, for the keyboard and for a browser without script. */
function graphNotes(answer: GraphAnswer): string {
  const n = answer.nodes.length;
  const items = answer.nodes.map((node) => `<li>${noteLink(node.id, node.title)}</li>`).join('\n');
  return `<details id="graph-notes"><summary>The ${n} note${n === 1 ? '' : 's'} of this graph</summary>
<ul>
${items}
</ul>
</details>`;
}

export function graphPage(note: { path: string; title: string } | undefined, hops: number, answer: GraphAnswer): string {
  // The first drawing's data comes with the page, so the script need not ask for it; `<` is
  // written as an escape, so no text of a note can end the block.
  const data = JSON.stringify(answer).replace(/</g, '\\u003c');
  const main = `<h1>Graph</h1>
<p class="meta">${note ? `The notes within ${hops} link${hops === 1 ? '' : 's'} of ${noteLink(note.path, note.title)}.` : 'An overview: the most linked notes and the links between them.'} Colour by kind, superseded notes dimmed; click a note to open it.</p>
<div id="graph"></div>
<script type="application/json" id="graph-data">${data}</script>
${graphNotes(answer)}`;
  return layout({ title: note ? `Graph of ${note.title}` : 'Graph', page: 'graph', main });
}
