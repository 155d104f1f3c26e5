import type { SyncResult } from '../api/sync.js';

function files(what: string, f: { added: string[]; changed: string[]; removed: string[] }): string[] {
  const parts = [
    f.added.length && `${f.added.length} added`,
    f.changed.length && `${f.changed.length} changed`,
    f.removed.length && `${f.removed.length} removed`,
  ].filter(Boolean);
  return parts.length ? [`${what}: ${parts.join(', ')}`, ...[...f.added, ...f.changed, ...f.removed].slice(0, 20).map((p) => `  ${p}`)] : [];
}

/** What a sync did, for a person: what was committed, what came in, what went out. */
export function syncText(r: SyncResult): string {
  const lines: string[] = [];
  if (r.recovered === 'undone') lines.push('undid the merge an earlier sync was stopped in, and merged again');
  if (r.recovered === 'committed') lines.push('committed the merge that was finished by hand');
  if (r.committed) lines.push(`committed ${r.committed.files.length} file(s) written here (${r.committed.sha.slice(0, 12)})`);
  lines.push(...files(`in from ${r.upstream} (${r.incoming.commits} commit(s))`, r.incoming));
  for (const m of r.renamed) lines.push(`two notes were written as ${m.from}: one is now ${m.to} (links to it follow by uuid)`);
  for (const x of r.resolved.filter((x) => x.how === 'merged into the archived copy'))
    lines.push(`${x.path} was archived on one host and merged into on another: the fragments are in the archived copy`);
  if (r.outgoing.pushed) lines.push(...files(`out to ${r.upstream} (${r.outgoing.commits} commit(s))`, r.outgoing));
  if (!r.incoming.commits && !r.outgoing.pushed) lines.push(`up to date with ${r.upstream}`);
  return lines.join('\n');
}
