import { withContext, type RunContext } from '../context.js';

/** How long the server must not have written the search index before it compacts it (see `tidyIndex`). */
const TIDY_QUIET_MS = 5000;

/**
 * Refreshes leave the search index in small pieces that slow every query: it is compacted once
 * writes have paused for a while, between calls, rather than by the refresh that reaches the
 * bound. Searches that need no refresh go on meanwhile (a server searched without a pause would
 * otherwise never compact); a refresh waits for it.
 */
export class Compaction {
  private tidying = false;

  constructor(
    private readonly root: string,
    /** How long the resident state has not written the search index (ms). */
    private readonly indexQuietMs: () => number,
    /** A call of the server's own to compact in. */
    private readonly ownCall: () => RunContext,
  ) {}

  /** Compact now when no call is under way and the index has been quiet long enough. */
  tick(callsQuiet: boolean): void {
    if (this.tidying || !callsQuiet || this.indexQuietMs() < TIDY_QUIET_MS) return;
    this.tidying = true;
    void withContext(this.ownCall(), async () => (await import('../search/fts-table.js')).tidyIndex(this.root))
      .catch(() => false)
      .finally(() => (this.tidying = false));
  }
}
