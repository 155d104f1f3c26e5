// The answer that changes nothing, per host: what a hook prints when it has nothing to add or
// cannot answer in time. Its own module, so the process's deadline guard loads nothing else.

const EMPTY: Record<string, string> = { claude: '{}\n', gemini: '{}\n', generic: '' };

/** The answer that changes nothing for `host`: valid output for every event (an unknown host gets none). */
export function emptyHookAnswer(host: string | undefined): string {
  return host !== undefined && Object.hasOwn(EMPTY, host) ? EMPTY[host] : '';
}
