import type { Command } from 'commander';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import { addEmbedOptions, type Invocation } from '../cli/invocation.js';

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('index [what]')
    .description('bring the search index and the note vectors up to date; normally automatic; "index status" tells how fresh it is')
    .option('--rebuild', 'start over from the files; re-embeds every note with the configured embedding model');
  addEmbedOptions(cmd).action(
    cli.action(async (what: string | undefined, flags: { rebuild?: boolean; embedModel?: string; embedBase?: string }) => {
      const api = await import('../api/search.js');
      const texts = await import('../text/search.js');
      const root = cli.root();
      if (api.checkIndexAction(what) === 'status') {
        const s = await api.indexStatus(root);
        return { json: { index: s }, text: texts.indexStatusText(s) };
      }
      const { configuredEmbedder, embedderChoice } = await import('../llm/embed.js');
      // Half an endpoint is a mistake, not a request for the built-in embedder.
      if ((flags.embedModel || flags.embedBase) && embedderChoice().kind !== 'endpoint') {
        throw new ZkError(
          'usage',
          `${flags.embedModel ? '--embed-model' : '--embed-base'} needs a whole embedding endpoint: pass --embed-base and --embed-model (or set ZK_MEMORY_EMBED_BASE and ZK_MEMORY_EMBED_MODEL)`,
        );
      }
      const embedder = await configuredEmbedder();
      const progress = (line: string) => current().io.stderr(`index: ${line}\n`);
      const r = await api.index(root, { rebuild: flags.rebuild, embedder, progress });
      return { json: { ...r }, text: texts.indexText(r) };
    }),
  );
}
