import type { FileState } from './manifest.js';

/** Notes embedded per step: at a few notes a second, a step is over in seconds. */
export const BACKGROUND_BATCH = 16;
/** How often a server looks for notes to embed when no call has poked it (each call does). */
const LOOK_EVERY_MS = 30_000;
/** The pause between batches while notes are left: other work of the event loop goes first. */
const BETWEEN_BATCHES_MS = 50;
/** After a failure (a model that cannot load, a full disk), how long before trying again. */
const AFTER_FAILURE_MS = 60_000;

export interface BackgroundEmbedding {
  /** Look for notes to embed soon (a call just changed some, say). */
  poke(): void;
  /** Stop; a step under way finishes its batch. */
  close(): void;
}

/**
 * A resident server's embedding of new and changed notes with an embedder that indexes in the
 * background (the built-in one): a bounded batch at a time, outside any lock while it embeds
 * (the index lock is held only to write a batch's vectors), yielding to the event loop between
 * notes, so a search never waits behind it: it ranks by the vectors there are, and by its words a
 * note not embedded yet. `inCall` runs a step in the server's own context (its settings and warm
 * index).
 */
export function backgroundEmbedding(root: string, o: { inCall: <T>(job: () => Promise<T>) => Promise<T> }): BackgroundEmbedding {
  let closed = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (ms: number, refresh: boolean) => {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void step(refresh), ms);
    timer.unref();
  };

  /**
   * One batch: embed up to BACKGROUND_BATCH notes; sooner again while more are left. Only the
   * periodic look refreshes the full-text index first (on a network file system that checks every
   * note); after a call, or between batches, the notes are as the index last saw them.
   */
  async function step(refresh: boolean): Promise<void> {
    if (closed || running) return;
    let next = LOOK_EVERY_MS;
    running = o
      .inCall(async () => {
        const { searchEmbedder } = await import('./embedder.js');
        const embedder = await searchEmbedder();
        // An endpoint is called by the search that needs it (it is fast); only a slow embedder is run here.
        if (!embedder?.background) return;
        const { refreshVectors } = await import('./vector.js');
        // Between batches, the manifest the server keeps (read again only when another process changed it): at a million notes the file is 100 MB.
        const files = refresh ? (await (await import('./fts-table.js')).refreshIndex(root)).files : await keptFiles(root);
        if (!files) return;
        const r = await refreshVectors(root, embedder, files, { chunk: BACKGROUND_BATCH, limit: BACKGROUND_BATCH });
        if (r.left > 0) next = BETWEEN_BATCHES_MS;
      })
      .catch(() => {
        // A model that cannot load says so to every search (its fallback notice); here it waits a while.
        next = AFTER_FAILURE_MS;
      })
      .finally(() => {
        running = undefined;
      });
    await running;
    schedule(next, next === LOOK_EVERY_MS);
  }

  schedule(0, true);
  return {
    poke: () => {
      if (!running) schedule(0, false);
    },
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}

/** The notes the index holds, from the manifest a resident process keeps (src/search/changes.ts `currentManifest`). */
async function keptFiles(root: string): Promise<ReadonlyMap<string, FileState> | undefined> {
  const [{ currentManifest }, { residentIndex }] = await Promise.all([import('./changes.js'), import('./resident-index.js')]);
  return currentManifest(root, residentIndex())?.files;
}
