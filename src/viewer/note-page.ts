import { read, type ReadResult } from '../api/read.js';
import { gitWorkTree } from '../api/corpus.js';
import { log, splitFamily } from '../api/history.js';
import { archivedNote, noteByUuid, noteParts, splitFromOf, splitParts, traceAbout } from '../api/browse.js';
import { esc, layout, meta, noteLink } from './html.js';
import { markdownHtml } from './markdown.js';

// A note's page (docs/viewer.md#note): the note rendered, its frontmatter, each merged fragment as
// a timeline, its links and backlinks, the supersession chain both ways, the split family, its git
// history, and the trace lines about it.

/** The body without the `# Title` heading it starts with (the page's own heading names the note). */
function withoutTitle(text: string, title: string): string {
  const m = /^\s*#[ \t]+([^\n]*?)[ \t#]*\r?\n/.exec(text);
  return m && m[1].trim() === title.trim() ? text.slice(m[0].length) : text;
}

function list(items: string[], empty: string): string {
  return items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : `<p class="none">${esc(empty)}</p>`;
}

function linksSection(r: ReadResult): string {
  const items = r.links.map((l) => {
    if (!l.resolved || !l.path)
      return `<span class="broken">${esc(l.label || l.target)}</span> <span class="why">broken: ${esc(l.ambiguous ? `names ${l.ambiguous.join(', ')}` : `no note ${l.target}`)}</span>`;
    const stale = l.anchor_uuid ? ' <span class="why">stale: its uuid anchor names another note</span>' : '';
    return `${noteLink(l.path, l.title ?? l.label, l.anchor_uuid ? 'stale' : '')}${stale}`;
  });
  return `<section id="links"><h2>Links</h2>${list(items, 'No links.')}</section>
<section id="backlinks"><h2>Backlinks</h2>${list(
    r.backlinks.map((b) => noteLink(b.path, b.title)),
    'No note links here.',
  )}</section>`;
}

function chainSection(r: ReadResult): string {
  const entry = (n: { path: string; title: string; archived: boolean; date: string }) =>
    `${noteLink(n.path, n.title, n.archived ? 'archived' : '')} <span class="meta">${esc(n.date)}${n.archived ? ' · archived' : ''}</span>`;
  if (!r.chain.length && !r.replaces.length) return '';
  return `<section id="chain"><h2>Beliefs</h2>
<h3>Replaces</h3>${list(r.replaces.map(entry), 'Nothing: the first belief on this.')}
<h3>Replaced by</h3>${list(r.chain.map(entry), 'Nothing: the current belief.')}</section>`;
}

/** A note's page link by uuid: live, else archived. */
function noteByUuidLink(root: string, uuid: string): string | undefined {
  const n = noteByUuid(root, uuid);
  return n && noteLink(n.path, n.title, n.archived ? 'archived' : '');
}

/** The note a live note was split from, and the notes split from it. */
function splitSection(root: string, r: ReadResult): string {
  const parentId = splitFromOf(r.note.frontmatter);
  const parent = parentId ? noteByUuidLink(root, parentId) : undefined;
  return familySection(
    parent,
    splitParts(root, r.note.uuid, r.backlinks).map((n) => noteLink(n.path, n.title)),
  );
}

function familySection(parent: string | undefined, parts: string[]): string {
  if (!parent && !parts.length) return '';
  return `<section id="split"><h2>Split family</h2>${parent ? `<p>Split from ${parent}</p>` : ''}${parts.length ? `<h3>Split into</h3>${list(parts, '')}` : ''}</section>`;
}

/** The family of an archived note (a split original): found by searching the notes for its uuid. */
function archivedSplitSection(root: string, ref: string): string {
  try {
    const family = splitFamily(root, ref);
    return familySection(
      family.parent ? noteLink(family.parent.path, family.parent.title) : undefined,
      family.children.map((c) => noteLink(c.path, c.title)),
    );
  } catch {
    return '';
  }
}

async function historySection(root: string, ref: string): Promise<string> {
  if (!(await gitWorkTree(root)).work_tree) return '';
  let commits;
  try {
    commits = (await log(root, ref, { limit: 30 })).commits;
  } catch {
    return '';
  }
  const items = commits.map((c) => `<code>${esc(c.sha.slice(0, 10))}</code> <time>${esc(c.date)}</time> ${esc(c.author)}: ${esc(c.subject)}`);
  return `<section id="history"><h2>Git history</h2>${list(items, 'Not committed yet.')}</section>`;
}

function traceSection(root: string, names: string[]): string {
  const items = traceAbout(root, names).map((t) => {
    const { ts, event, ...rest } = t;
    const detail = Object.entries(rest)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join('; ');
    return `<time>${esc(ts)}</time> <strong>${esc(event)}</strong> <span class="detail">${esc(detail.length > 600 ? `${detail.slice(0, 600)}…` : detail)}</span>`;
  });
  return `<section id="trace"><h2>Decisions</h2>${list(items, 'The trace names no decision about this note.')}</section>`;
}

function frontmatterSection(fm: Record<string, unknown>): string {
  const rows = Object.entries(fm).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</td></tr>`);
  return rows.length ? `<details id="frontmatter"><summary>Frontmatter</summary><table>${rows.join('')}</table></details>` : '';
}

function body(text: string, title: string): string {
  const { own, fragments } = noteParts(text);
  const timeline = fragments.map(
    (f) =>
      `<li><div class="when"><time>${esc(f.when)}</time>${f.source ? ` <span class="source">${esc(f.source)}</span>` : ''}</div>${markdownHtml(f.text)}</li>`,
  );
  return `<article class="body">${markdownHtml(withoutTitle(own, title))}</article>${timeline.length ? `<section id="fragments"><h2>Merged since</h2><ol class="timeline">${timeline.join('')}</ol></section>` : ''}`;
}

/** The page of a live note. */
export async function notePage(root: string, name: string): Promise<string> {
  const r = read(root, name);
  const n = r.note;
  const successor = n.superseded_by ? (r.chain.find((c) => !c.archived) ?? r.chain[0]) : undefined;
  const superseded = n.superseded_by
    ? `<p class="superseded-by">superseded by ${successor ? noteLink(successor.path, successor.title) : esc(n.superseded_by)}</p>`
    : '';
  const main = `<h1>${esc(n.title)}</h1>
${superseded}<p class="meta">${meta(n)} · <code>${esc(n.path)}</code> · <a href="/graph?note=${esc(encodeURIComponent(n.path))}">Graph</a></p>
${frontmatterSection(n.frontmatter)}
${body(n.body, n.title)}
${linksSection(r)}
${chainSection(r)}
${splitSection(root, r)}
${await historySection(root, n.path)}
${traceSection(root, [n.path, n.uuid])}`;
  return layout({ title: n.title, page: 'note', data: { note: n.path }, main });
}

/** The page of an archived note (read-only like every page, from `.archive/`). */
export function archivedPage(root: string, name: string): string {
  const n = archivedNote(root, name);
  const main = `<h1>${esc(n.title)}</h1>
<p class="archived-note">archived: moved to <code>.archive/${esc(name)}</code>${n.superseded_by ? ' · superseded' : ''}</p>
<p class="meta">${meta(n)}</p>
${frontmatterSection(n.frontmatter)}
${body(n.body, n.title)}
${archivedSplitSection(root, `.archive/${name}`)}
${traceSection(root, [n.path, n.uuid])}`;
  return layout({ title: n.title, page: 'note', data: { note: `.archive/${name}` }, main });
}
