// Small DOM helpers. Data from the server only ever reaches the page through
// textContent or attributes, never through innerHTML.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// True when a key press belongs to a field the user is typing in.
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

export function markUpdated(): void {
  document.body.dataset.updated = String(Date.now());
}

// Only same-site paths are followed; anything else falls back to the note's
// own page, so a bad value in the JSON can never become a javascript: link.
export function noteHref(href: string | null | undefined, path: string): string {
  if (href && href.startsWith('/') && !href.startsWith('//')) return href;
  return `/note/${encodeURIComponent(path)}`;
}
