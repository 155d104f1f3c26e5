import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ZkError } from '../../errors.js';
import type { ImportFailure } from './items.js';

// Reading what is imported: whole files that are bounded, decoded strictly, and parsed with errors
// that name the file and the line.

/** The largest input file read (bytes): a JSON file is parsed whole, so it must fit in memory. */
export const MAX_INPUT_BYTES = 1024 * 1024 * 1024;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The text of an input file (unpacked when it ends in `.gz`), without a BOM; refused when missing, a folder, too large or not UTF-8. */
export function readInputFile(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) throw new ZkError('usage', `${file}: no such file`);
  if (!st.isFile()) throw new ZkError('usage', `${file}: not a file`);
  if (st.size > MAX_INPUT_BYTES) throw new ZkError('usage', `${file}: ${st.size} bytes, over the ${MAX_INPUT_BYTES} bytes an import reads`);
  let buf = fs.readFileSync(file);
  if (file.endsWith('.gz')) {
    try {
      buf = zlib.gunzipSync(buf, { maxOutputLength: MAX_INPUT_BYTES });
    } catch (err) {
      throw new ZkError('usage', `${file}: not gzip, or over ${MAX_INPUT_BYTES} bytes unpacked (${(err as Error).message.split('\n')[0]})`);
    }
  }
  let text: string;
  try {
    text = decoder.decode(buf);
  } catch {
    throw new ZkError('usage', `${file}: not valid UTF-8`);
  }
  return text.replace(/^\uFEFF/, '');
}

/** The line a character offset falls on (1-based). */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** A whole JSON file parsed; refused with the file and line when it is not JSON (truncated, say). */
export function parseJsonFile(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = (err as Error).message.split('\n')[0];
    const at = /position (\d+)/.exec(message);
    const where = at ? `:${lineAt(text, Number(at[1]))}` : /end of JSON/i.test(message) ? `:${lineAt(text, text.length)}` : '';
    throw new ZkError('usage', `${path.basename(file)}${where}: not JSON (${message})`);
  }
}

/** One parsed line of a JSON Lines file. */
export interface JsonLine {
  line: number;
  value: unknown;
}

/** The lines of a JSON Lines file: blank lines skipped, a line that is not JSON a failure of its own. */
export function jsonLines(text: string, file: string): { lines: JsonLine[]; failed: ImportFailure[] } {
  const lines: JsonLine[] = [];
  const failed: ImportFailure[] = [];
  const name = path.basename(file);
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      lines.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      failed.push({ item: `${name}:${i + 1}`, reason: `not JSON (${(err as Error).message.split('\n')[0]})` });
    }
  });
  return { lines, failed };
}

/** Whether a value is a plain JSON object. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A non-empty string, else undefined. */
export function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() ? v : undefined;
}

/** `YYYY-MM-DD` of an ISO date or date-time (or epoch seconds/milliseconds), in UTC; undefined when it is none. */
export function dayOf(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return new Date(v < 1e11 ? v * 1000 : v).toISOString().slice(0, 10);
  if (typeof v !== 'string') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString().slice(0, 10);
}
