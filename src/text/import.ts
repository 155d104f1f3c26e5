import type { ExportResult, ImportResult } from '../api/import.js';

/** An import's summary for people: what was made, merged, queued, skipped and what failed. */
export function importText(r: ImportResult): string {
  const would = r.dry_run ? 'would be ' : '';
  const counts = `${r.created} ${would}created, ${r.merged} ${would}merged, ${r.queued} ${would}queued, ${r.skipped} skipped, ${r.failed.length} failed`;
  return `${r.dry_run ? 'dry run: ' : ''}${r.format} ${r.source}: ${counts}`;
}

/** Each item an import could not take, one line each (for stderr). */
export function failureLines(r: ImportResult): string[] {
  return r.failed.map((f) => `${f.item}: ${f.reason}`.replace(/\r?\n/g, '\\n'));
}

/** Where an export went. */
export function exportText(r: ExportResult): string {
  return `${r.lines} ${r.format} lines written to ${r.out}`;
}
