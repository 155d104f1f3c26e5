import { el, noteHref } from './dom.js';
import { installListKeys, ListSelection } from './keys.js';

interface Hit {
  path: string;
  title: string;
  date?: string | null;
  kind?: string | null;
  author?: string | null;
  snippet?: string | null;
  superseded_by?: string | null;
  href?: string | null;
}

interface SearchAnswer {
  ok: boolean;
  backend?: string;
  hits?: Hit[];
  error?: string | { message?: string };
}

// Short enough to feel instant, long enough to skip a request per keystroke
// when someone types fast.
const DEBOUNCE_MS = 25;

export interface LiveSearch {
  // Re-runs the current query; resolves once its answer is on the page.
  rerun(): Promise<void>;
}

export function initSearch(): LiveSearch | null {
  const input = document.getElementById('q');
  const list = document.getElementById('results');
  if (!(input instanceof HTMLInputElement) || !list) return null;
  const box = input;
  const results = list;
  const backend = document.getElementById('backend');
  const select = backend instanceof HTMLSelectElement ? backend : null;
  const status = statusLine(results);
  // Name the backend in the address only when it is not the page's default.
  const keepBackend = new URLSearchParams(location.search).has('backend');
  const selection = new ListSelection(results);
  installListKeys(box, selection);

  let controller: AbortController | null = null;
  let timer: number | undefined;
  let seq = 0;

  async function run(): Promise<void> {
    window.clearTimeout(timer);
    const q = box.value;
    const mine = ++seq;
    controller?.abort();
    controller = null;
    syncUrl(q, select, keepBackend);
    if (q.trim() === '') {
      results.replaceChildren();
      status.textContent = '';
      selection.clear();
      document.body.dataset.renderedQuery = q;
      return;
    }
    const ctl = new AbortController();
    controller = ctl;
    const params = new URLSearchParams({ q });
    if (select?.value) params.set('backend', select.value);
    let answer: SearchAnswer;
    try {
      const res = await fetch(`/api/search?${params}`, {
        signal: ctl.signal,
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      answer = (await res.json()) as SearchAnswer;
    } catch (err) {
      if (ctl.signal.aborted || mine !== seq) return;
      answer = { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    // A slower answer to an older query must not overwrite a newer one.
    if (mine !== seq) return;
    controller = null;
    render(answer, q);
  }

  function render(answer: SearchAnswer, q: string): void {
    const keep = selection.selectedHref();
    if (!answer.ok) {
      results.replaceChildren();
      status.textContent = `Search failed: ${errorText(answer.error)}`;
    } else {
      const hits = answer.hits ?? [];
      results.replaceChildren(...hits.map(hitItem));
      status.textContent = hits.length === 0 ? 'No notes found.' : '';
    }
    selection.restore(keep);
    document.body.dataset.renderedQuery = q;
  }

  function schedule(): void {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void run(), DEBOUNCE_MS);
  }

  box.addEventListener('input', schedule);
  select?.addEventListener('change', () => void run());
  // Enter with a selection opens it (see keys.ts); without one the form
  // submits as usual and the server renders the same results.

  // The browser may restore a different value into the box on back/forward;
  // bring the results in line with what the box shows.
  const urlQ = new URLSearchParams(location.search).get('q') ?? '';
  if (box.value !== urlQ) void run();
  else document.body.dataset.renderedQuery = box.value;

  return { rerun: run };
}

function hitItem(hit: Hit): HTMLLIElement {
  const li = el('li', 'hit');
  const a = el('a', undefined, hit.title || hit.path);
  a.href = noteHref(hit.href, hit.path);
  const meta = [hit.date, hit.kind, hit.author].filter((part): part is string => !!part);
  if (hit.superseded_by) {
    li.classList.add('superseded');
    meta.push(`superseded by ${hit.superseded_by}`);
  }
  li.append(a, ' ', el('span', 'meta', meta.join(' · ')));
  if (hit.snippet) li.append(el('p', 'snippet', hit.snippet));
  return li;
}

// The address bar always shows a link that reproduces the current results.
function syncUrl(q: string, select: HTMLSelectElement | null, keepBackend: boolean): void {
  const params = new URLSearchParams();
  if (q !== '') params.set('q', q);
  const chosen = select?.selectedOptions[0];
  if (select?.value && (keepBackend || (chosen && !chosen.defaultSelected))) {
    params.set('backend', select.value);
  }
  const query = params.toString();
  const url = query ? `/search?${query}` : '/search';
  if (url !== location.pathname + location.search) history.replaceState(history.state, '', url);
}

// One polite live region after the list for "no results" and errors, so
// screen readers hear about them; reuse the server's if it rendered one.
function statusLine(results: HTMLElement): HTMLElement {
  const existing = document.getElementById('search-status');
  if (existing) return existing;
  const p = el('p', 'search-status');
  p.id = 'search-status';
  p.setAttribute('role', 'status');
  p.setAttribute('aria-live', 'polite');
  results.after(p);
  return p;
}

function errorText(error: SearchAnswer['error']): string {
  if (!error) return 'unknown error';
  return typeof error === 'string' ? error : (error.message ?? 'unknown error');
}
