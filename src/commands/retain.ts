import type { Command } from 'commander';
import { EXIT, ZkError } from '../errors.js';
import { addCommitOption, addLlmOptions, fileArg, textArg, type Invocation } from '../cli/invocation.js';
import type { RetainRequestInput } from '../api/judged.js';

interface RetainFlags {
  messages?: string;
  transcript?: string;
  source?: string;
  backend?: string;
  drain?: boolean;
  lease?: boolean;
}

/** Chat messages from a JSON file: a list of {role, content}, or an object holding one as `messages`. */
function parseMessages(text: string, file: string): RetainRequestInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ZkError('usage', `--messages ${file}: not JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const list = Array.isArray(value) ? value : (value as { messages?: unknown })?.messages;
  if (!Array.isArray(list) || !list.every((m) => m && typeof m === 'object' && typeof (m as { role?: unknown }).role === 'string')) {
    throw new ZkError('usage', `--messages ${file}: expected a JSON array of {role, content} messages`);
  }
  return { messages: list };
}

function retainInput(user: string | undefined, assistant: string | undefined, flags: RetainFlags): RetainRequestInput {
  // Nothing named but a conversation piped in: it is a transcript.
  if (user === undefined && flags.messages === undefined && flags.transcript === undefined) {
    const piped = textArg(undefined);
    if (piped !== undefined) return { transcript: piped };
  }
  const given = [user !== undefined, flags.messages !== undefined, flags.transcript !== undefined].filter(Boolean).length;
  if (given !== 1) throw new ZkError('usage', 'retain takes one input: USER ASSISTANT, --messages FILE or --transcript FILE');
  if (flags.messages !== undefined) return parseMessages(fileArg(flags.messages), flags.messages);
  if (flags.transcript !== undefined) return { transcript: fileArg(flags.transcript) };
  if (assistant === undefined) throw new ZkError('usage', 'retain USER ASSISTANT needs both what the user said and the answer');
  return { user: user!, assistant };
}

export function register(program: Command, cli: Invocation): void {
  const cmd = program
    .command('retain [user] [assistant]')
    .description('distill a conversation into notes: a turn (USER ASSISTANT), --messages, --transcript or a transcript piped in; --drain retries the inbox')
    .option('--messages <file>', 'chat messages as JSON ([{role, content}], "-" for stdin); only user and assistant turns count')
    .option('--transcript <file>', 'a plain-text transcript ("-" for stdin)')
    .option('--source <name>', 'who it comes from (default: ZK_MEMORY_SOURCE)')
    .option('--backend <name>', 'search backend used to find where memories belong')
    .option('--drain', 'retry what earlier runs left in the inbox')
    .option('--lease', 'with --drain: hold the caretaker lease while draining (fails with exit 4 while another caretaker holds it)');
  addCommitOption(addLlmOptions(cmd)).action(
    cli.action(async (user: string | undefined, assistant: string | undefined, flags: RetainFlags) => {
      const api = await import('../api/judged.js');
      const texts = await import('../text/judged.js');
      const root = cli.root();
      if (flags.drain) {
        if (user !== undefined || flags.messages !== undefined || flags.transcript !== undefined) {
          throw new ZkError('usage', 'retain --drain takes no other input');
        }
        const d = await api.retainDrain(root, { source: flags.source, backend: flags.backend, lease: flags.lease });
        return { ok: d.kept === 0, json: { ...d }, text: texts.drainText(d), exitCode: d.kept ? EXIT.llm : EXIT.ok, error: d.error?.message };
      }
      if (flags.lease) throw new ZkError('usage', '--lease goes with --drain');
      const r = await api.retain(root, { input: retainInput(user, assistant, flags), source: flags.source, backend: flags.backend });
      if (!r.error) return { json: { ...r }, text: texts.retainText(r) };
      return { ok: false, exitCode: EXIT.llm, json: { ...r }, text: texts.retainText(r), error: r.error.message };
    }),
  );
}
