import type { Command } from 'commander';
import { action, corpusRoot } from '../cli/context.js';
import { addLlmOptions } from '../llm/options.js';
import type { RetainFlags } from '../pipelines/commands.js';

export function register(program: Command): void {
  const cmd = program
    .command('retain [user] [assistant]')
    .description('distill a conversation into notes: a turn (USER ASSISTANT), --messages or --transcript; --drain retries the inbox')
    .option('--messages <file>', 'chat messages as JSON ([{role, content}], "-" for stdin); only user and assistant turns count')
    .option('--transcript <file>', 'a plain-text transcript ("-" for stdin)')
    .option('--source <name>', 'who it comes from (default: ZK_MEMORY_SOURCE)')
    .option('--backend <name>', 'search backend used to find where memories belong')
    .option('--drain', 'retry what earlier runs left in the inbox');
  addLlmOptions(cmd).action(action(async (user: string | undefined, assistant: string | undefined, flags: RetainFlags) => {
    const root = corpusRoot();
    const { retainCommand } = await import('../pipelines/commands.js');
    return retainCommand(root, user, assistant, flags);
  }));
}
