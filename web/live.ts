import { markUpdated } from './dom.js';

export type ChangeHandler = (paths: string[]) => Promise<void>;

// Listens for the server's `change` events. Reconnecting after a dropped
// connection is left to EventSource itself.
export function listen(onChange: ChangeHandler): void {
  if (typeof EventSource === 'undefined') return;
  const source = new EventSource('/events');
  const apply = serialised(onChange);
  source.addEventListener('change', (event) => {
    void apply(changedPaths((event as MessageEvent).data));
  });
}

function changedPaths(data: unknown): string[] {
  try {
    const parsed = JSON.parse(String(data)) as { paths?: unknown };
    return Array.isArray(parsed.paths) ? parsed.paths.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

// A burst of changes (a sync, an ingest) must not start a fetch per event:
// while one update runs, later events collapse into a single follow-up.
function serialised(handler: ChangeHandler): (paths: string[]) => Promise<void> {
  let running = false;
  let pending: string[] | null = null;
  return async function apply(paths: string[]): Promise<void> {
    if (running) {
      pending = (pending ?? []).concat(paths);
      return;
    }
    running = true;
    try {
      await handler(paths);
      markUpdated();
    } catch (err) {
      console.warn('live update failed', err);
    } finally {
      running = false;
    }
    if (pending) {
      const next = pending;
      pending = null;
      await apply(next);
    }
  };
}

// The current address read again, parsed. The server's HTML is already
// sanitised, and scripts in a parsed document never run, so adopting its
// nodes is safe.
export async function fetchPage(): Promise<Document> {
  const res = await fetch(location.href, {
    credentials: 'same-origin',
    headers: { Accept: 'text/html' },
  });
  const type = res.headers.get('content-type') ?? '';
  if (!type.includes('text/html')) throw new Error(`unexpected ${res.status} ${type}`);
  return new DOMParser().parseFromString(await res.text(), 'text/html');
}

// Swaps in the new page's <main>.
export async function refreshMain(): Promise<void> {
  const main = document.getElementById('main');
  if (!main) return;
  const doc = await fetchPage();
  const fresh = doc.getElementById('main') ?? doc.querySelector('main');
  if (!fresh) throw new Error('no <main> in the refreshed page');
  // A copy of the list first: adopting a node takes it out of the live list being walked.
  main.replaceChildren(...[...fresh.childNodes].map((node) => document.adoptNode(node)));
  if (doc.title) document.title = doc.title;
}
