import type { SetupResult } from '../api/setup.js';

const VERB = { created: 'created', updated: 'updated', deleted: 'deleted', unchanged: 'unchanged' } as const;
const WOULD = { created: 'would create', updated: 'would update', deleted: 'would delete', unchanged: 'unchanged' } as const;

/** One line per settings file, with what was added or removed; then what the host needs next. */
export function setupText(r: SetupResult): string {
  const sign = r.remove ? '-' : '+';
  const lines = r.files.map(
    (f) => `${f.file}: ${(r.dry_run ? WOULD : VERB)[f.action]}${f.changes.length ? ` (${f.changes.map((c) => `${sign}${c}`).join(', ')})` : ''}`,
  );
  const changed = r.files.some((f) => f.action !== 'unchanged');
  if (changed && !r.dry_run) lines.push(`restart ${r.host === 'claude' ? 'Claude Code' : 'Gemini CLI'} for it to take effect`);
  if (r.host === 'gemini' && !r.remove)
    lines.push('Gemini CLI runs hooks only with its hooks system enabled ("tools": {"enableHooks": true}, or /settings > Advanced)');
  return lines.join('\n');
}
