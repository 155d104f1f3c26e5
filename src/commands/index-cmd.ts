import type { Command } from 'commander';
import { ZkError } from '../errors.js';
import { action, corpusRoot } from '../cli/context.js';
import type { EmbedFlags } from '../llm/config.js';
import { addEmbedOptions } from '../llm/options.js';
import type { RefreshReport } from '../search/fts.js';
import type { VectorReport, VectorStatus } from '../search/vector.js';

interface IndexFlags extends EmbedFlags {
  rebuild?: boolean;
}

function vectorStatusLine(v: VectorStatus | null): string {
  if (!v) return 'vectors: none (built by the first vector or hybrid search, or `index` with an embedding endpoint)';
  const pending = v.pending ? `, ${v.pending} pending` : '';
  return `vectors: ${v.notes} notes embedded with model ${JSON.stringify(v.model)}, dimension ${v.dimension}${pending} (refreshed ${v.refreshedAt})`;
}

function vectorReportLine(v: VectorReport): string {
  const what = v.rebuilt ? 're-embedded' : 'embedded';
  return `vectors: ${v.embedded} ${what}, ${v.removed} removed (${v.notes} notes, model ${JSON.stringify(v.model)}, dimension ${v.dimension ?? '-'})`;
}

/** How fresh the full-text index and the vectors are, as JSON and as lines for people. */
export async function indexReport(root: string): Promise<{ json: Record<string, unknown>; text: string }> {
  const { scanIndex } = await import('../search/fts.js');
  const { vectorStatus } = await import('../search/vector.js');
  const location = (await import('../search/location.js')).indexLocation(root);
  const { freshness: s, hashes } = scanIndex(root);
  const v = vectorStatus(root, hashes);
  const text = !s.exists
    ? `index: none yet (${s.notes} notes); it is built on the first search`
    : s.fresh
      ? `index: up to date, ${s.notes} notes (refreshed ${s.refreshedAt})`
      : `index: stale, ${s.pending} of ${s.notes} notes changed since ${s.refreshedAt}`;
  const where = `index location: ${location.dir} (${location.why})`;
  return { json: { ...s, location, vectors: v }, text: `${text}\n${where}\n${vectorStatusLine(v)}` };
}

export function register(program: Command): void {
  const cmd = program
    .command('index [what]')
    .description('bring the search index (and, with an embedding endpoint, the note vectors) up to date; normally automatic; "index status" tells how fresh it is')
    .option('--rebuild', 'start over from the files; re-embeds every note with the configured embedding model');
  addEmbedOptions(cmd).action(action(async (what: string | undefined, flags: IndexFlags) => {
    const root = corpusRoot();
    if (what === 'status') {
      const r = await indexReport(root);
      return { json: { index: r.json }, text: r.text };
    }
    const { syncIndex } = await import('../search/fts.js');
    const vectors = await import('../search/vector.js');
    if (what !== undefined) throw new ZkError('usage', `unknown index action: ${JSON.stringify(what)} (use "index", "index --rebuild" or "index status")`);
    const { configuredEmbedder } = await import('../llm/embed.js');
    const embedder = configuredEmbedder(flags);
    const rebuild = Boolean(flags.rebuild);
    const refresh = async (): Promise<RefreshReport & { vectors?: VectorReport }> => {
      const sync = await syncIndex(root, { rebuild });
      // A rebuild starts the vectors over too: re-embedded with the configured model, else dropped.
      const progress = (line: string) => process.stderr.write(`index: ${line}\n`);
      if (embedder) return { ...sync.report, vectors: await vectors.syncVectors(root, embedder, sync.files, { rebuild, progress }) };
      if (rebuild) await vectors.dropVectors(root);
      return sync.report;
    };
    // The index lock alone serializes index builds: the index is per-host state, not corpus upkeep.
    const r = await refresh();
    const text = r.rebuilt
      ? `index rebuilt: ${r.notes} notes`
      : `index refreshed: ${r.added} added, ${r.changed} changed, ${r.removed} removed (${r.notes} notes)`;
    return { json: { action: r.rebuilt ? 'rebuilt' : 'refreshed', ...r }, text: r.vectors ? `${text}\n${vectorReportLine(r.vectors)}` : text };
  }));
}
