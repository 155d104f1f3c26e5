import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { replaceDerivedFile } from '../files/files.js';

// A per-note cache file (src/corpus/note/stat-cache.ts), a line of JSON per note after a line that
// says its version and when its rows were seen. Read and written a line at a time: at 1,000,000
// notes the file is some 250 MB, which parsed whole held a JavaScript array per row and per field
// at once (most of a resident server's peak memory while it warmed up), and past about 500 MB
// could not be read into one string at all.

export type CacheRow = [name: string, mtimeMs: number, ctimeMs: number, ino: number, size: number, kept: unknown];

/** A number a cache may hold (finite). */
export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const validRow = (r: unknown): r is CacheRow =>
  Array.isArray(r) && r.length === 6 && typeof r[0] === 'string' && isNum(r[1]) && isNum(r[2]) && isNum(r[3]) && isNum(r[4]);

const CHUNK = 1 << 20;

/** The lines of a file, one at a time, without the file in memory at once. */
function* linesOf(fd: number): Generator<string> {
  const buf = Buffer.allocUnsafe(CHUNK);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  for (let n = fs.readSync(fd, buf, 0, CHUNK, null); n > 0; n = fs.readSync(fd, buf, 0, CHUNK, null)) {
    const lines = (rest + decoder.write(buf.subarray(0, n))).split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  rest += decoder.end();
  if (rest) yield rest;
}

/**
 * A cache file's rows, read in the order they were written (file-name order, as the notes are
 * listed): `rowFor` is asked for names in that order and passes over the rows of names between.
 * A row that is damaged is passed over too: its note is read again, as if it had no row.
 */
export class CacheRows {
  /** Rows read and not answered by `rowFor`, or not read at all (see `close`). */
  private passedOver = 0;
  private next: CacheRow | undefined;

  private constructor(
    readonly seenAt: number,
    private readonly fd: number,
    private readonly lines: Generator<string>,
  ) {
    this.next = this.read();
  }

  /** The rows of `file`; undefined when it is missing, or of another version or form. */
  static open(file: string, version: number): CacheRows | undefined {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      const lines = linesOf(fd);
      const head = JSON.parse(lines.next().value ?? '') as { version?: unknown; seenAt?: unknown };
      if (head?.version === version && isNum(head.seenAt)) return new CacheRows(head.seenAt, fd, lines);
    } catch {
      // no cache, or not one of ours
    }
    if (fd !== undefined) fs.closeSync(fd);
    return undefined;
  }

  /** The row of `name`, if the file has one (names asked for in file-name order). */
  rowFor(name: string): CacheRow | undefined {
    while (this.next && this.next[0] < name) {
      this.passedOver++;
      this.next = this.read();
    }
    if (this.next?.[0] !== name) return undefined;
    const row = this.next;
    this.next = this.read();
    return row;
  }

  /** Done: how many rows were not answered (the notes of some are gone, or changed). */
  close(): number {
    while (this.next) {
      this.passedOver++;
      this.next = this.read();
    }
    fs.closeSync(this.fd);
    return this.passedOver;
  }

  private read(): CacheRow | undefined {
    for (let line = this.lines.next(); !line.done; line = this.lines.next()) {
      try {
        const row: unknown = JSON.parse(line.value);
        if (validRow(row)) return row;
      } catch {
        // a damaged line
      }
      this.passedOver++;
    }
    return undefined;
  }
}

/** A cache file's text, in pieces of about CHUNK: its head line, then a line per row. */
function* cacheText(version: number, seenAt: number, rows: Iterable<CacheRow>): Generator<string> {
  let text = `${JSON.stringify({ version, seenAt })}\n`;
  for (const row of rows) {
    text += `${JSON.stringify(row)}\n`;
    if (text.length > CHUNK) {
      yield text;
      text = '';
    }
  }
  yield text;
}

/**
 * Write a cache file of `rows` (see replaceDerivedFile). A cache that cannot be written (a
 * read-only corpus) is simply not kept: the next call reads the notes again.
 */
export function writeCacheRows(file: string, version: number, seenAt: number, rows: Iterable<CacheRow>): void {
  try {
    replaceDerivedFile(file, cacheText(version, seenAt, rows));
    // The same cache as one JSON document (`.json`), as earlier versions wrote it: no longer read.
    if (file.endsWith('.jsonl')) fs.rmSync(file.slice(0, -1), { force: true });
  } catch {
    // derived data only
  }
}
