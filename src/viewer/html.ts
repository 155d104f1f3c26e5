// The HTML every viewer page shares: escaping, note addresses, the frame (docs/viewer.md). Pages
// are built as text from escaped values only; the one place Markdown becomes HTML is
// src/viewer/markdown.ts, through a sanitiser.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** A live note's page. */
export const noteHref = (path: string) => `/note/${encodeURIComponent(path)}`;
/** An archived note's page (`.archive/NAME`). */
export const archivedHref = (name: string) => `/archived/${encodeURIComponent(name)}`;
/** The page of a path as the library gives it: an archived one is under `.archive/`. */
export const pathHref = (path: string) => (path.startsWith('.archive/') ? archivedHref(path.slice('.archive/'.length)) : noteHref(path));

/** A link whose text holds the target's title. */
export function noteLink(path: string, title: string, cls = ''): string {
  return `<a href="${esc(pathHref(path))}"${cls ? ` class="${esc(cls)}"` : ''}>${esc(title || path)}</a>`;
}

export interface Page {
  /** What the `<title>` says (the note's title on a note page). */
  title: string;
  /** `search`, `note`, `graph`, `recent`, `health`: for the script and the styles. */
  page: string;
  /** More `data-` attributes of the body (`note`, `hops`). */
  data?: Record<string, string>;
  /** The page's content, HTML. */
  main: string;
}

/** A whole page: head, the navigation every page has, and the content in `<main id="main">`. */
export function layout(p: Page): string {
  const data = Object.entries({ page: p.page, ...(p.data ?? {}) })
    .map(([k, v]) => ` data-${k}="${esc(v)}"`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${esc(p.title)} · zk-memory</title>
<link rel="stylesheet" href="/assets/viewer.css">
<script type="module" src="/assets/viewer.js"></script>
</head>
<body${data}>
<header><nav><a href="/search">Search</a> <a href="/graph">Graph</a> <a href="/recent">Recent</a> <a href="/health">Health</a></nav></header>
<main id="main">
${p.main}
</main>
</body>
</html>
`;
}

/** `date · kind · source`, the parts a note has. */
export function meta(n: { date?: string | null; kind?: string | null; author?: string | null }): string {
  return [n.date, n.kind, n.author].filter(Boolean).map(esc).join(' · ');
}
