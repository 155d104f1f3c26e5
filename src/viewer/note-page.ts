import fs from 'node:fs';
import path from 'node:path';
import { read, type ReadResult } from '../api/read.js';
import { gitWorkTree } from '../api/corpus.js';
import { log, splitFamily } from '../api/history.js';
import { sidecar } from '../corpus/files/paths.js';
import { bodyParts } from '../corpus/note/merge3.js';
import { FRAGMENT_HEADER } from '../corpus/note/format.js';
import { readNoteFile } from '../corpus/note/notes.js';
import { loadNoteMetas } from '../corpus/note/note-meta.js';
import { archivedByUuid } from '../corpus/graph/supersession.js';
import { ZkError } from '../errors.js';
import { esc, layout, meta, noteLink } from './html.js';
import { markdownHtml } from './markdown.js';

// A note's page (docs/viewer.md#note): the note rendered, its frontmatter, each merged fragment as
// a timeline, its links and backlinks, the supersession chain both ways, the split family, its git
// history, and the trace lines about it.

const ONE_HEADER = new RegExp(FRAGMENT_HEADER.source);

/** The note's own text and its fragments, each with its date and source. */
function parts(body: string): { own: string; fragments: { when: string; source: string | null; text: string }[] } {
  const [own, ...rest] = bodyParts(body);
  const fragments = rest.map((unit) => {
    const m = ONE_HEADER.exec(unit);
    const header = m ? unit.slice(0, m.index + m[0].length) : '';
    const source = /\(([^\n]*?)\):\*/.exec(header)?.[1] ?? null;
    return { when: m?.[1] ?? '', source, text: m ? unit.slice(m.index + m[0].length) : unit };
  });
  return { own, fragments };
}

/** The body without the `# Title` heading it starts with (the page's own heading names the note). */
function withoutTitle(text: string, title: string): string {
  const m = /^\s*#[ \t]+([^\n]*?)[ \t#]*\r?\n/.exec(text);
  return m && m[1].trim() === title.trim() ? text.slice(m[0].length) : text;
}

/** The trace lines that name the note (its file or uuid), newest last, at most `max`. */
function traceLines(root: string, names: string[], max = 50): Record<string, unknown>[] {
  const file = sidecar(root).trace;
  let text = '';
  try {
    const size = fs.statSync(file).size;
    // A long trace is read from its last 8 MB: the lines about a note that matter most are recent.
    const fd = fs.openSync(file, 'r');
    try {
      const start = Math.max(0, size - 8 * 1024 * 1024);
      const buf = Buffer.alloc(size - start);
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
  const wanted = names.filter(Boolean);
  const out: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (!wanted.some((n) => line.includes(n))) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the 8 MB window, or not JSON
    }
  }
  return out.slice(-max);
}

function list(items: string[], empty: string): string {
  return items.length ? `<ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : `<p class="none">${esc(empty)}</p>`;
}

function linksSection(r: ReadResult): string {
  const items = r.links.map((l) => {
    if (!l.resolved || !l.path) return `<span class="broken">${esc(l.label || l.target)}</span> <span class="why">broken: ${esc(l.ambiguous ? `names ${l.ambiguous.join(', ')}` : `no note ${l.target}`)}</span>`;
    const stale = l.anchor_uuid ? ' <span class="why">stale: its uuid anchor names another note</span>' : '';
    return `${noteLink(l.path, l.title ?? l.label, l.anchor_uuid ? 'stale' : '')}${stale}`;
  });
  return `<section id="links"><h2>Links</h2>${list(items, 'No links.')}</section>
<section id="backlinks"><h2>Backlinks</h2>${list(r.backlinks.map((b) => noteLink(b.path, b.title)), 'No note links here.')}</section>`;
}

function chainSection(r: ReadResult): string {
  const entry = (n: { path: string; title: string; archived: boolean; date: string }) => `${noteLink(n.path, n.title, n.archived ? 'archived' : '')} <span class="meta">${esc(n.date)}${n.archived ? ' · archived' : ''}</span>`;
  if (!r.chain.length && !r.replaces.length) return '';
  return `<section id="chain"><h2>Beliefs</h2>
<h3>Replaces</h3>${list(r.replaces.map(entry), 'Nothing: the first belief on this.')}
<h3>Replaced by</h3>${list(r.chain.map(entry), 'Nothing: the current belief.')}</section>`;
}

const splitFrom = (fm: Record<string, unknown>) => String(fm.split_from ?? '').trim().toLowerCase();

/** A note's page link by uuid: live (from the kept metadata), else archived. */
function noteByUuidLink(root: string, uuid: string): string | undefined {
  const live = loadNoteMetas(root).find((m) => m.uuid.toLowerCase() === uuid);
  if (live) return noteLink(live.path, live.title);
  const archived = archivedByUuid(root, uuid);
  return archived ? noteLink(`.archive/${archived.path}`, archived.title, 'archived') : undefined;
}

/**
 * The note a live note was split from, and the notes split from it. A part links to the note it
 * was split from (its `Part of` line), so the parts are among the backlinks: no search of every note.
 */
function splitSection(root: string, r: ReadResult): string {
  const parentId = splitFrom(r.note.frontmatter);
  const parent = parentId ? noteByUuidLink(root, parentId) : undefined;
  const own = r.note.uuid.toLowerCase();
  const parts = own
    ? r.backlinks.flatMap((b) => readNoteFile(root, b.path) ?? []).filter((n) => splitFrom(n.parsed.frontmatter) === own)
    : [];
  return familySection(parent, parts.map((n) => noteLink(n.path, n.title)));
}

function familySection(parent: string | undefined, parts: string[]): string {
  if (!parent && !parts.length) return '';
  return `<section id="split"><h2>Split family</h2>${parent ? `<p>Split from ${parent}</p>` : ''}${parts.length ? `<h3>Split into</h3>${list(parts, '')}` : ''}</section>`;
}

/** The family of an archived note (a split original): found by searching the notes for its uuid. */
function archivedSplitSection(root: string, ref: string): string {
  try {
    const family = splitFamily(root, ref);
    return familySection(family.parent ? noteLink(family.parent.path, family.parent.title) : undefined, family.children.map((c) => noteLink(c.path, c.title)));
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
  const items = traceLines(root, names).map((t) => {
    const { ts, event, ...rest } = t;
    const detail = Object.entries(rest).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('; ');
    return `<time>${esc(ts)}</time> <strong>${esc(event)}</strong> <span class="detail">${esc(detail.length > 600 ? `${detail.slice(0, 600)}…` : detail)}</span>`;
  });
  return `<section id="trace"><h2>Decisions</h2>${list(items, 'The trace names no decision about this note.')}</section>`;
}

function frontmatterSection(fm: Record<string, unknown>): string {
  const rows = Object.entries(fm).map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</td></tr>`);
  return rows.length ? `<details id="frontmatter"><summary>Frontmatter</summary><table>${rows.join('')}</table></details>` : '';
}

function body(text: string, title: string): string {
  const { own, fragments } = parts(text);
  const timeline = fragments.map((f) => `<li><div class="when"><time>${esc(f.when)}</time>${f.source ? ` <span class="source">${esc(f.source)}</span>` : ''}</div>${markdownHtml(f.text)}</li>`);
  return `<article class="body">${markdownHtml(withoutTitle(own, title))}</article>${timeline.length ? `<section id="fragments"><h2>Merged since</h2><ol class="timeline">${timeline.join('')}</ol></section>` : ''}`;
}

/** The page of a live note. */
export async function notePage(root: string, name: string): Promise<string> {
  const r = read(root, name);
  const n = r.note;
  const successor = n.superseded_by ? r.chain.find((c) => !c.archived) ?? r.chain[0] : undefined;
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
  const dir = sidecar(root).archive;
  if (name.includes('/') || name.startsWith('.') || !/\.md$/i.test(name)) throw new ZkError('not_found', `no archived note ${name}`);
  const n = readNoteFile(dir, name);
  if (!n) throw new ZkError('not_found', `no archived note ${name}`);
  const main = `<h1>${esc(n.title)}</h1>
<p class="archived-note">archived: moved to <code>.archive/${esc(name)}</code>${n.superseded_by ? ' · superseded' : ''}</p>
<p class="meta">${meta(n)}</p>
${frontmatterSection(n.parsed.frontmatter)}
${body(n.parsed.body, n.title)}
${archivedSplitSection(root, `.archive/${name}`)}
${traceSection(root, [path.posix.join('.archive', name), n.uuid])}`;
  return layout({ title: n.title, page: 'note', data: { note: `.archive/${name}` }, main });
}
