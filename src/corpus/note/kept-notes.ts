import { current } from '../../context.js';
import type { NoteWatch } from '../../ports.js';

/**
 * The domain's part of a long-running process's resident state (src/ports.ts `ResidentState`):
 * what the per-note caches (src/corpus/note/stat-cache.ts) keep in memory between calls, and the
 * watcher that says which notes to read again.
 */
export class KeptNotes {
  /** What a consumer keeps between calls, under its key (the process's, not one call's). */
  readonly kept = new Map<string, unknown>();
  private readonly warming = new Set<string>();
  private readonly closing = new AbortController();

  /**
   * `warmUp` runs a job in the process's own context, not that of the call that asked for it
   * (see `warmSoon`); without it nothing is built for the calls to come.
   */
  constructor(
    private readonly watch: NoteWatch,
    private readonly warmUp?: (job: () => Promise<void>) => void,
  ) {}

  /** The note names changed since the last take under `key` (see `NoteWatch.takeFor`). */
  take(key: string): { names: Set<string>; complete: boolean } {
    return this.watch.takeFor(key);
  }

  /**
   * Have `build` keep, under `key`, what a call could have used had it been kept: run between
   * calls in the process's own context, once per key at a time, and stopped when the process
   * closes. A process that builds nothing for calls to come (no `warmUp`) does nothing.
   */
  warmSoon(key: string, build: (signal: AbortSignal) => Promise<void>): void {
    const warmUp = this.warmUp;
    if (!warmUp || this.warming.has(key) || this.kept.has(key) || this.closing.signal.aborted) return;
    this.warming.add(key);
    // Not within the call that asked: it goes on, and the building runs between its steps.
    warmUp(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await build(this.closing.signal).finally(() => this.warming.delete(key));
    });
  }

  /** Stop what is being built: the process is closing. */
  close(): void {
    this.closing.abort();
  }
}

/** The current call's kept notes, when a long-running process keeps them and watches the root. */
export function keptNotes(): KeptNotes | undefined {
  return current().resident?.part(KeptNotes);
}
