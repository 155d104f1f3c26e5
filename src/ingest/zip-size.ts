/**
 * How large a zip archive (a DOCX) unpacks to, read from its central directory before anything is
 * unpacked, and checked against what its deflated entries really inflate to. A small file that
 * unpacks to gigabytes is refused here instead of inside the converter, which holds it all in memory.
 */
import zlib from 'node:zlib';
import { Unreadable } from './convert.js';

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX_COMMENT = 0xffff;

/** A damaged archive is reported like any converter failure (`cannot convert docx: …`). */
function damaged(why: string): Error {
  return new Error(`damaged zip archive: ${why}`);
}

function u64(b: Buffer, at: number): number {
  return Number(b.readBigUInt64LE(at));
}

/** The end-of-central-directory record: where the directory is and how many entries it holds. */
function directoryBounds(b: Buffer): { count: number; offset: number; size: number } {
  const floor = Math.max(0, b.length - 22 - MAX_COMMENT);
  let at = b.length - 22;
  while (at >= floor && b.readUInt32LE(at) !== EOCD) at--;
  if (at < floor) throw damaged('no end of central directory');
  let count = b.readUInt16LE(at + 10);
  let size = b.readUInt32LE(at + 12);
  let offset = b.readUInt32LE(at + 16);
  if ((count === 0xffff || size === 0xffffffff || offset === 0xffffffff) && at >= 20 && b.readUInt32LE(at - 20) === ZIP64_LOCATOR) {
    const z = u64(b, at - 20 + 8);
    if (z + 56 > b.length || b.readUInt32LE(z) !== ZIP64_EOCD) throw damaged('bad zip64 end of central directory');
    count = u64(b, z + 32);
    size = u64(b, z + 40);
    offset = u64(b, z + 48);
  }
  if (offset + size > b.length) throw damaged('central directory runs past the end of the file');
  return { count, offset, size };
}

/** Sizes too large for 32 bits are in the entry's zip64 extra field, in this order. */
function zip64Sizes(extra: Buffer, e: ZipEntry): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const len = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let p = at + 4;
      const next = () => {
        if (p + 8 > at + 4 + len) throw damaged(`bad zip64 field for ${e.name}`);
        const v = u64(extra, p);
        p += 8;
        return v;
      };
      if (e.size === 0xffffffff) e.size = next();
      if (e.compressedSize === 0xffffffff) e.compressedSize = next();
      if (e.localOffset === 0xffffffff) e.localOffset = next();
      return;
    }
    at += 4 + len;
  }
}

/** The entries of a zip archive as its central directory lists them. */
export function zipEntries(b: Buffer, maxEntries: number): ZipEntry[] {
  if (b.length < 22) throw damaged('too short');
  const { count, offset, size } = directoryBounds(b);
  if (count > maxEntries) throw new Unreadable(`zip archive lists ${count} entries (limit ${maxEntries})`);
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > offset + size || b.readUInt32LE(at) !== CENTRAL) throw damaged('bad central directory entry');
    const nameLength = b.readUInt16LE(at + 28);
    const extraLength = b.readUInt16LE(at + 30);
    const commentLength = b.readUInt16LE(at + 32);
    const e: ZipEntry = {
      name: b.toString('utf8', at + 46, at + 46 + nameLength),
      method: b.readUInt16LE(at + 10),
      compressedSize: b.readUInt32LE(at + 20),
      size: b.readUInt32LE(at + 24),
      localOffset: b.readUInt32LE(at + 42),
    };
    zip64Sizes(b.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), e);
    entries.push(e);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The compressed bytes of an entry, found through its local header. */
function entryData(b: Buffer, e: ZipEntry): Buffer {
  const at = e.localOffset;
  if (at + 30 > b.length || b.readUInt32LE(at) !== LOCAL) throw damaged(`bad local header for ${e.name}`);
  const start = at + 30 + b.readUInt16LE(at + 26) + b.readUInt16LE(at + 28);
  if (start + e.compressedSize > b.length) throw damaged(`${e.name} runs past the end of the file`);
  return b.subarray(start, start + e.compressedSize);
}

/** Inflate a deflated entry without keeping its output, stopping as soon as it passes its declared size. */
async function inflatesWithin(data: Buffer, size: number): Promise<boolean> {
  const inflate = zlib.createInflateRaw();
  let total = 0;
  const done = new Promise<boolean>((resolve) => {
    inflate.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > size) {
        inflate.destroy();
        resolve(false);
      }
    });
    inflate.on('end', () => resolve(true));
    // A corrupt stream is the converter's to report; only the size is judged here.
    inflate.on('error', () => resolve(total <= size));
  });
  inflate.end(data);
  return done;
}

export interface ZipLimits {
  /** The most bytes all entries may unpack to together. */
  unpackedBytes: number;
  /** The most entries an archive may list. */
  entries: number;
}

/**
 * Refuse an archive whose entries unpack to more than the limit, by the sizes its directory
 * declares and by what its deflated entries really inflate to (a directory can lie).
 */
export async function checkUnpackedSize(b: Buffer, limits: ZipLimits): Promise<void> {
  const entries = zipEntries(b, limits.entries);
  const declared = entries.reduce((n, e) => n + e.size, 0);
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
  if (declared > limits.unpackedBytes) {
    throw new Unreadable(`unpacks to ${mb(declared)} (limit ${mb(limits.unpackedBytes)}): refused before unpacking`);
  }
  for (const e of entries) {
    if (e.method === 0 && e.compressedSize !== e.size) throw damaged(`stored entry ${e.name} has two sizes`);
    if (e.method === 8 && !(await inflatesWithin(entryData(b, e), e.size))) {
      throw new Unreadable(`zip entry ${e.name} unpacks to more than the ${e.size} bytes it declares: refused`);
    }
  }
}
