import { ZkError } from '../../errors.js';
import type { ReadInput } from './items.js';
import { exportJsonl, readJsonl } from './jsonl.js';
import { readMem0 } from './mem0.js';
import { readClaudeCode, readCodex, readVault } from './folder-formats.js';
import { readChatgpt, readClaude } from './conversations.js';
import { exportMemoryJson, readMemoryJson } from './memory-json.js';

// The formats an import reads and an export writes, by the name the command line gives them.

/** How an input is read: `verbatim` keeps each conversation as a note instead of queueing it. */
export interface ReadOptions {
  verbatim?: boolean;
}

const READERS: Record<string, (path: string, o: ReadOptions) => ReadInput> = {
  jsonl: readJsonl,
  'memory-json': readMemoryJson,
  mem0: readMem0,
  'claude-code': readClaudeCode,
  codex: readCodex,
  obsidian: readVault,
  'basic-memory': readVault,
  chatgpt: readChatgpt,
  claude: readClaude,
};

/** The formats of conversations, which `verbatim` applies to. */
const CONVERSATIONS = new Set(['chatgpt', 'claude']);

const WRITERS: Record<string, (root: string) => { lines: string[] }> = {
  jsonl: exportJsonl,
  'memory-json': exportMemoryJson,
};

export const IMPORT_FORMATS = Object.keys(READERS);
export const EXPORT_FORMATS = Object.keys(WRITERS);

function known<T>(table: Record<string, T>, format: string, what: string): T {
  if (!Object.hasOwn(table, format)) throw new ZkError('usage', `unknown ${what} format ${JSON.stringify(format)} (one of: ${Object.keys(table).join(', ')})`);
  return table[format];
}

/** Read an input in a format: its items, and what could not be read. */
export function readInput(format: string, path: string, o: ReadOptions = {}): ReadInput {
  const read = known(READERS, format, 'import');
  if (o.verbatim && !CONVERSATIONS.has(format)) throw new ZkError('usage', `--verbatim is for conversation exports (chatgpt, claude), not ${format}`);
  return read(path, o);
}

/** The corpus in a format: its lines, one JSON object each. */
export function exportLines(format: string, root: string): string[] {
  return known(WRITERS, format, 'export')(root).lines;
}
