import type { Command } from 'commander';
import { addCommitOption, addLlmOptions, collect, textArg, type Invocation } from '../cli/invocation.js';
import type { IntegrateRequest } from '../api/judged.js';

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('integrate [content]')
    .description('careful write: merge into the note it belongs to, supersede one, or create (an LLM judges)')
    .option('--topic <text>', 'what the memory is about (searched for an existing note; default: title or first line)')
    .option('--kind <kind>', 'concept | entity_update | decision (a decision is always a note of its own)')
    .option('--title <text>', 'title if a note is created')
    .option('--slug <slug>', 'slug if a note is created')
    .option('--choice <text>', 'for a decision: what was chosen')
    .option('--alternatives <text>', 'for a decision: an alternative considered (repeatable)', collect)
    .option('--rationale <text>', 'for a decision: why')
    .option('--source <name>', 'who it comes from (default: ZK_MEMORY_SOURCE)')
    .option('--backend <name>', 'search backend used to find candidates');
  addCommitOption(addLlmOptions(cmd)).action(
    cli.action(async (content: string | undefined, flags: Omit<IntegrateRequest, 'content'>) => {
      const { integrate } = await import('../api/judged.js');
      const { integrateText } = await import('../text/judged.js');
      const { topic, kind, title, slug, choice, alternatives, rationale, source, backend } = flags;
      const r = await integrate(cli.root(), { content: textArg(content) ?? '', topic, kind, title, slug, choice, alternatives, rationale, source, backend });
      return { json: { ...r }, text: integrateText(r) };
    }),
  );
}
