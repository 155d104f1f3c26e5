import { ZkError } from '../errors.js';
import { TEND_ACTIONS, type TendAction } from '../tend/actions.js';
import { tendCommit } from './commit-message.js';
import type { TendResult } from './results.js';
import { committing } from './commit.js';

export interface TendRequest {
  /** mint, repair, robustify: change the files (default: a dry run). */
  write?: boolean;
  /** check: unanchored links count as problems too. */
  strict?: boolean;
}

/** The tend action named, checked against its options. */
function checkTendAction(value: string, o: TendRequest): TendAction {
  if (!(TEND_ACTIONS as readonly string[]).includes(value)) {
    throw new ZkError('usage', `unknown tend action: ${JSON.stringify(value)} (one of ${TEND_ACTIONS.join(', ')})`);
  }
  const act = value as TendAction;
  if (act === 'check' && o.write) throw new ZkError('usage', 'tend check never writes; --write is for mint, repair and robustify');
  if (act !== 'check' && o.strict) throw new ZkError('usage', '--strict is for tend check');
  return act;
}

/** Link integrity: check every link, or mint uuids, repair stale links, anchor plain ones. */
export async function tend(root: string, action: string, o: TendRequest = {}): Promise<TendResult> {
  const act = checkTendAction(action, o);
  const { tendCheck, tendMint, tendRepair, tendRobustify } = await import('../tend/run.js');
  const write = Boolean(o.write);
  if (act === 'check') return { ...tendCheck(root), strict: Boolean(o.strict) };
  const fix = act === 'mint' ? tendMint : act === 'repair' ? tendRepair : tendRobustify;
  const run = async (): Promise<TendResult> => ({ ...(await fix(root, { write })), strict: false });
  return write ? committing(root, run, tendCommit) : run();
}

/**
 * Whether a tend result is a failure: problems found by check, or something a fix could not mend.
 * A shared undated slug is told, not failed (refs still name one note), unless `strict`.
 */
export function tendFailed(r: TendResult): boolean {
  const c = r.counts;
  if (r.action === 'check') return Boolean(c.stale || c.broken || c.impossible || c.bad_date || c.fork || (r.strict && (c.unanchored || c.same_slug)));
  return r.findings.some((f) => !f.fix);
}
