import fs from 'node:fs';
import path from 'node:path';
import { ZkError } from '../errors.js';
import { writeTemp } from '../corpus/files/files.js';
import { readInput, exportLines } from '../pipelines/import/formats.js';
import { runImport, type ImportReport } from '../pipelines/import/run.js';
import { committing } from './commit.js';
import { countsText } from './commit-message.js';

// Bringing memory kept elsewhere into the corpus, and taking it out (docs/import-export.md).

export type ImportResult = ImportReport & { source: string };

export interface ImportRequest {
  format: string;
  /** The file (or folder) to import. */
  path: string;
  /** Report what would happen; write nothing. */
  dryRun?: boolean;
  /** Conversations: each one note of kind `conversation`, instead of an input queued in the inbox for an LLM. */
  verbatim?: boolean;
  /** Told after each item: how many are done, of how many. */
  progress?: (done: number, total: number) => void;
}

/**
 * Import memory in a format: each item becomes a note (or is merged into the note an earlier
 * import of it made), all of it or none; what cannot be read is listed in `failed`. Refused
 * (`usage`) when nothing of the input could be read.
 */
export async function importMemory(root: string, o: ImportRequest): Promise<ImportResult> {
  const source = path.resolve(o.path);
  // A corpus read as a vault would import every note as a copy of itself.
  if (fs.existsSync(source) && fs.realpathSync(source) === fs.realpathSync(root))
    throw new ZkError('usage', `${o.path} is the corpus itself: import reads memory kept elsewhere`);
  const input = readInput(o.format, source, { verbatim: o.verbatim });
  const run = async () => ({ ...(await runImport(root, o.format, input, { dryRun: o.dryRun, progress: o.progress })), source });
  if (o.dryRun) return run();
  return committing(root, run, (r) => ({
    subject: `import ${r.format}: ${countsText(Object.fromEntries(Object.entries({ created: r.created, merged: r.merged, queued: r.queued }).filter(([, n]) => n > 0)), 'nothing new')}`,
    lines: [`from ${r.source}`],
  }));
}

export interface ExportResult {
  format: string;
  /** How many lines (JSON objects) were written. */
  lines: number;
  /** The file written, or null when the export is the answer's `text`. */
  out: string | null;
  /** The export itself, when it was not written to a file. */
  text?: string;
}

/**
 * The corpus in a format. With `out`, written to that file whole (a temp file renamed over it,
 * so a reader never sees half an export); otherwise returned as `text`.
 */
export function exportMemory(root: string, o: { format: string; out?: string }): ExportResult {
  const lines = exportLines(o.format, root);
  const text = lines.length ? `${lines.join('\n')}\n` : '';
  if (o.out === undefined) return { format: o.format, lines: lines.length, out: null, text };
  const out = path.resolve(o.out);
  const st = fs.lstatSync(out, { throwIfNoEntry: false });
  if (st && !st.isFile()) throw new ZkError('usage', `--out ${o.out}: not a file`);
  const tmp = writeTemp(out, text);
  try {
    fs.renameSync(tmp, out);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return { format: o.format, lines: lines.length, out };
}
