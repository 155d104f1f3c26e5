import type { TendResult } from '../api/results.js';
import type { TendAction } from '../tend/actions.js';
import type { Finding } from '../tend/check.js';
import { countsText } from '../api/commit-message.js';
import { hint } from '../hints.js';

function findingLine(act: TendAction, f: Finding): string {
  const what =
    act === 'mint' ? 'note without uuid' : f.form === 'wiki' ? `[[${f.target}${f.label === f.target ? '' : `|${f.label}`}]]` : `[${f.label}](${f.target})`;
  const fix = f.fix ? ` -> ${[f.fix.target, f.fix.uuid && `uuid ${f.fix.uuid}`, f.fix.current && 'current again'].filter(Boolean).join(', ')}` : '';
  const why = f.reason ? ` (${f.reason})` : '';
  return `${f.file}:${f.line}: ${f.verdict}: ${what}${fix}${why}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Verdicts a check always prints; unanchored links only with --strict, being many and harmless. */
const SHOWN = new Set(['stale', 'broken', 'impossible', 'bad_date', 'fork', 'same_slug']);

function checkText(r: TendResult): string {
  const shown = r.findings.filter((f) => SHOWN.has(f.verdict) || (r.strict && f.verdict === 'unanchored'));
  const lines = shown.map((f) => findingLine('check', f));
  lines.push(`${plural(r.findings.length, 'link')}: ${countsText(r.counts)}`);
  if (r.counts.stale) lines.push(`stale links can be fixed: ${hint('repairLinks')}`);
  if (r.counts.unanchored) lines.push(`unanchored links can be anchored: ${hint('anchorLinks')}`);
  if (r.counts.impossible) lines.push('impossible validity is left for a person to correct in the notes named (repair does not change it)');
  if (r.counts.bad_date) lines.push('a date that is no date is read as if absent: correct it in the notes named (repair does not change it)');
  const fork = r.findings.find((f) => f.verdict === 'fork')?.notes;
  if (fork) lines.push(`a fork is left for a person to settle (repair does not change it): ${hint('settleFork', fork[0], fork[1])}`);
  if (r.counts.same_slug) lines.push(`an undated slug several current notes bear names the newest of them; to reach another, ${hint('nameByFile')}`);
  return lines.join('\n');
}

function rewriteText(r: TendResult): string {
  const lines = r.findings.map((f) => findingLine(r.action, f));
  const fixable = r.findings.filter((f) => f.fix).length;
  const item = r.action === 'mint' ? 'note' : 'link';
  lines.push(
    r.write
      ? `${r.action}: changed ${plural(r.changed, item)} in ${plural(r.files.length, 'file')} (${countsText(r.counts)})`
      : `${r.action}: would change ${plural(fixable, item)} (${countsText(r.counts)}); dry run, nothing written: ${hint('writeFix')}`,
  );
  return lines.join('\n');
}

export function tendText(r: TendResult): string {
  return r.action === 'check' ? checkText(r) : rewriteText(r);
}
