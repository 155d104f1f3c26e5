import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { action, corpusRoot } from '../cli/context.js';
import type { Finding } from '../tend/check.js';
import { TEND_ACTIONS, type TendAction } from '../tend/actions.js';
import type { TendReport } from '../tend/run.js';

interface TendFlags {
  write?: boolean;
  strict?: boolean;
}

function parseAction(value: string, flags: TendFlags): TendAction {
  if (!(TEND_ACTIONS as readonly string[]).includes(value)) {
    throw new ZkError('usage', `unknown tend action: ${JSON.stringify(value)} (one of ${TEND_ACTIONS.join(', ')})`);
  }
  const act = value as TendAction;
  if (act === 'check' && flags.write) throw new ZkError('usage', 'tend check never writes; --write is for mint, repair and robustify');
  if (act !== 'check' && flags.strict) throw new ZkError('usage', '--strict is for tend check');
  return act;
}

function findingLine(act: TendAction, f: Finding): string {
  const what = act === 'mint' ? 'note without uuid' : f.form === 'wiki' ? `[[${f.target}${f.label === f.target ? '' : `|${f.label}`}]]` : `[${f.label}](${f.target})`;
  const fix = f.fix ? ` -> ${[f.fix.target, f.fix.uuid && `uuid ${f.fix.uuid}`].filter(Boolean).join(', ')}` : '';
  const why = f.reason ? ` (${f.reason})` : '';
  return `${f.file}:${f.line}: ${f.verdict}: ${what}${fix}${why}`;
}

function countsLine(r: TendReport): string {
  return Object.entries(r.counts).map(([v, n]) => `${n} ${v}`).join(', ');
}

function checkText(r: TendReport, strict: boolean): string {
  const shown = r.findings.filter((f) => f.verdict === 'stale' || f.verdict === 'broken' || (strict && f.verdict === 'unanchored'));
  const lines = shown.map((f) => findingLine('check', f));
  lines.push(`${plural(r.findings.length, 'link')}: ${countsLine(r)}`);
  if (r.counts.stale) lines.push('stale links can be fixed: zk-memory tend repair --write');
  if (r.counts.unanchored) lines.push('unanchored links can be anchored: zk-memory tend robustify --write');
  return lines.join('\n');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function rewriteText(r: TendReport): string {
  const lines = r.findings.map((f) => findingLine(r.action, f));
  const fixable = r.findings.filter((f) => f.fix).length;
  const item = r.action === 'mint' ? 'note' : 'link';
  lines.push(r.write
    ? `${r.action}: changed ${plural(r.changed, item)} in ${plural(r.files.length, 'file')} (${countsLine(r)})`
    : `${r.action}: would change ${plural(fixable, item)} (${countsLine(r)}); dry run, nothing written: add --write`);
  return lines.join('\n');
}

function exitCode(r: TendReport, strict: boolean): number {
  if (r.action === 'check') return r.counts.stale || r.counts.broken || (strict && r.counts.unanchored) ? 1 : 0;
  // a mutating action fails when it met something it cannot fix
  return r.findings.some((f) => !f.fix) ? 1 : 0;
}

async function runTend(act: TendAction, root: string, write: boolean): Promise<TendReport> {
  const { tendCheck, tendMint, tendRepair, tendRobustify } = await import('../tend/run.js');
  switch (act) {
    case 'check':
      return tendCheck(root);
    case 'mint':
      return tendMint(root, { write });
    case 'repair':
      return tendRepair(root, { write });
    case 'robustify':
      return tendRobustify(root, { write });
  }
}

export function register(program: Command): void {
  program
    .command('tend <action>')
    .description('link integrity: check | mint | repair | robustify (mint, repair and robustify change files only with --write)')
    .option('--write', 'mint, repair, robustify: change the files (default: dry run, report only)')
    .option('--strict', 'check: unanchored links fail too')
    .action(action(async (value: string, flags: TendFlags) => {
      const act = parseAction(value, flags);
      const strict = Boolean(flags.strict);
      const r = await runTend(act, corpusRoot(), Boolean(flags.write));
      return {
        json: { action: r.action, write: r.write, findings: r.findings, counts: r.counts, changed: r.changed, files: r.files },
        text: act === 'check' ? checkText(r, strict) : rewriteText(r),
        exitCode: exitCode(r, strict),
      };
    }));
}
