import { isTyping } from './dom.js';

// `/` jumps to search from anywhere, as on most documentation sites. On the
// search page it focuses the box; elsewhere it opens the search page.
export function installSlash(searchBox: HTMLInputElement | null): void {
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.defaultPrevented || isTyping(event.target)) return;
    event.preventDefault();
    if (searchBox) {
      searchBox.focus();
      searchBox.select();
      return;
    }
    const link = document.querySelector<HTMLAnchorElement>('nav a[href^="/search"]');
    location.assign(link?.href ?? '/search');
  });
}

// A keyboard selection over the result list. Focus stays in the search box so
// the user can keep typing; the selection is a class plus aria-selected.
export class ListSelection {
  private index = -1;

  constructor(private readonly list: HTMLElement) {}

  private items(): HTMLElement[] {
    return Array.from(this.list.querySelectorAll<HTMLElement>(':scope > li.hit'));
  }

  selectedLink(): HTMLAnchorElement | null {
    const item = this.items()[this.index];
    return item?.querySelector<HTMLAnchorElement>('a[href]') ?? null;
  }

  move(step: number): void {
    const items = this.items();
    if (items.length === 0) return;
    const next = this.index < 0 ? (step > 0 ? 0 : items.length - 1) : this.index + step;
    this.set(Math.max(0, Math.min(items.length - 1, next)));
  }

  clear(): void {
    this.set(-1);
  }

  // After the list is rebuilt, keep the same note selected if it is still there.
  restore(href: string | null): void {
    if (!href) return this.set(-1);
    const items = this.items();
    this.set(items.findIndex((li) => li.querySelector('a')?.getAttribute('href') === href));
  }

  selectedHref(): string | null {
    return this.selectedLink()?.getAttribute('href') ?? null;
  }

  private set(index: number): void {
    const items = this.items();
    this.index = index;
    items.forEach((li, i) => {
      const on = i === index;
      li.classList.toggle('selected', on);
      if (on) li.setAttribute('aria-selected', 'true');
      else li.removeAttribute('aria-selected');
    });
    items[index]?.scrollIntoView({ block: 'nearest' });
  }
}

// Arrow keys move the selection whether focus is in the box or on the page;
// Enter opens the selected note. Other fields (the backend select) keep their
// own arrow-key behaviour.
export function installListKeys(searchBox: HTMLInputElement, selection: ListSelection): void {
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    const inBox = event.target === searchBox;
    if (!inBox && isTyping(event.target)) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      selection.move(event.key === 'ArrowDown' ? 1 : -1);
    } else if (event.key === 'Enter') {
      const link = selection.selectedLink();
      if (!link) return;
      // A focused link on the page opens itself; do not override it.
      if (!inBox && event.target instanceof HTMLAnchorElement) return;
      event.preventDefault();
      location.assign(link.href);
    } else if (event.key === 'Escape' && inBox) {
      selection.clear();
    }
  });
}
