import type { FileStamp } from '../corpus/files/file-stamp.js';

/** What the index knows of one note file, to tell cheaply whether it changed. */
export interface FileState extends FileStamp {
  /** The first 16 hex digits of the content's sha256: enough to tell a real change from a touch. */
  hash: string;
  /** Stated too soon after a change for its stamp to vouch for its content: read again next time. */
  unsure: boolean;
}

/** A hash as the index makes it (see `FileState.hash`). */
const HEX16 = /^[0-9a-f]{16}$/;

/**
 * What the index knows of every note file, by name, as a map: kept column by column, since a
 * resident server keeps it between refreshes (src/search/changes.ts `currentManifest`), and at 50,000
 * notes a map of `FileState` records took 11 MB of heap where this takes 6. `get` and iteration
 * hand out records made on the spot, each the caller's own; the order is the map's (insertion).
 */
export class FileStates implements ReadonlyMap<string, FileState> {
  /** Each name's row in the columns below. */
  private readonly rows = new Map<string, number>();
  /** Rows of names deleted, for names set after. */
  private readonly free: number[] = [];
  private mtimeMs = new Float64Array(0);
  private ctimeMs = new Float64Array(0);
  private sizes = new Float64Array(0);
  private inos = new Float64Array(0);
  private unsure = new Uint8Array(0);
  /**
   * Each hash of 16 hex digits (every hash the index makes) as two 32-bit halves: as a string it
   * weighed 40 bytes a note. Another hash (one written by hand into the manifest, say) is kept as it is in `oddHashes`.
   */
  private hashHalves = new Uint32Array(0);
  private readonly oddHashes = new Map<number, string>();

  constructor(entries?: Iterable<readonly [string, FileState]>) {
    if (entries) for (const [name, state] of entries) this.set(name, state);
  }

  get size(): number {
    return this.rows.size;
  }

  has(name: string): boolean {
    return this.rows.has(name);
  }

  get(name: string): FileState | undefined {
    const row = this.rows.get(name);
    return row === undefined ? undefined : this.at(row);
  }

  /**
   * What `get` gives but the hash: a check of every note's stamp asks it once a note (1,000,000
   * times at 1,000,000 notes), and the hash is a string made anew when asked.
   */
  stamp(name: string): Omit<FileState, 'hash'> | undefined {
    const row = this.rows.get(name);
    if (row === undefined) return undefined;
    return { mtimeMs: this.mtimeMs[row], ctimeMs: this.ctimeMs[row], size: this.sizes[row], ino: this.inos[row], unsure: this.unsure[row] === 1 };
  }

  set(name: string, state: FileState): this {
    let row = this.rows.get(name);
    if (row === undefined) {
      row = this.free.pop() ?? this.rows.size;
      if (row >= this.mtimeMs.length) this.grow(Math.max(64, row * 2));
      this.rows.set(name, row);
    }
    this.mtimeMs[row] = state.mtimeMs;
    this.ctimeMs[row] = state.ctimeMs;
    this.sizes[row] = state.size;
    this.inos[row] = state.ino;
    this.unsure[row] = state.unsure ? 1 : 0;
    this.setHash(row, state.hash);
    return this;
  }

  delete(name: string): boolean {
    const row = this.rows.get(name);
    if (row === undefined) return false;
    this.rows.delete(name);
    this.oddHashes.delete(row);
    this.free.push(row);
    return true;
  }

  keys(): MapIterator<string> {
    return this.rows.keys();
  }

  *values(): MapIterator<FileState> {
    for (const row of this.rows.values()) yield this.at(row);
  }

  *entries(): MapIterator<[string, FileState]> {
    for (const [name, row] of this.rows) yield [name, this.at(row)];
  }

  [Symbol.iterator](): MapIterator<[string, FileState]> {
    return this.entries();
  }

  forEach(fn: (state: FileState, name: string, map: ReadonlyMap<string, FileState>) => void): void {
    for (const [name, row] of this.rows) fn(this.at(row), name, this);
  }

  private at(row: number): FileState {
    return {
      mtimeMs: this.mtimeMs[row],
      ctimeMs: this.ctimeMs[row],
      size: this.sizes[row],
      ino: this.inos[row],
      hash: this.hashAt(row),
      unsure: this.unsure[row] === 1,
    };
  }

  private setHash(row: number, hash: string): void {
    if (HEX16.test(hash)) {
      this.hashHalves[2 * row] = Number.parseInt(hash.slice(0, 8), 16);
      this.hashHalves[2 * row + 1] = Number.parseInt(hash.slice(8), 16);
      this.oddHashes.delete(row);
    } else this.oddHashes.set(row, hash);
  }

  private hashAt(row: number): string {
    const odd = this.oddHashes.get(row);
    if (odd !== undefined) return odd;
    const half = (n: number) => n.toString(16).padStart(8, '0');
    return half(this.hashHalves[2 * row]) + half(this.hashHalves[2 * row + 1]);
  }

  private grow(length: number): void {
    const wider = <A extends Float64Array | Uint8Array | Uint32Array>(a: A, make: (n: number) => A, times = 1): A => {
      const b = make(length * times);
      b.set(a);
      return b;
    };
    this.mtimeMs = wider(this.mtimeMs, (n) => new Float64Array(n));
    this.ctimeMs = wider(this.ctimeMs, (n) => new Float64Array(n));
    this.sizes = wider(this.sizes, (n) => new Float64Array(n));
    this.inos = wider(this.inos, (n) => new Float64Array(n));
    this.unsure = wider(this.unsure, (n) => new Uint8Array(n));
    this.hashHalves = wider(this.hashHalves, (n) => new Uint32Array(n), 2);
  }
}
