// Progressive enhancement for the server-rendered viewer pages: every page
// works without this script; it adds search-as-you-type, keyboard shortcuts,
// live updates and the drawn graph.
import { initGraph } from './graph.js';
import { installSlash } from './keys.js';
import { listen, refreshMain } from './live.js';
import { initSearch } from './search.js';

function start(): void {
  const page = document.body.dataset.page ?? '';
  const box = page === 'search' ? document.getElementById('q') : null;
  installSlash(box instanceof HTMLInputElement ? box : null);

  if (page === 'search') {
    const search = initSearch();
    listen(async () => {
      await search?.rerun();
    });
  } else if (page === 'graph') {
    const graph = initGraph();
    listen(async () => {
      await graph?.reload();
    });
  } else {
    // Note pages refresh on every change, not only ones naming the note or its
    // links: a new note that links here changes this page's backlinks too.
    listen(refreshMain);
  }
}

// Module scripts run after parsing, but be safe if the tag moves into <head>
// with async.
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', start, { once: true });
} else {
  start();
}
