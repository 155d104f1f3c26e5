import path from 'node:path';
import { dayOf, isObject, parseJsonFile, readInputFile, text } from './source.js';
import type { ConversationItem, ImportFailure, NoteItem, ReadInput } from './items.js';

// Conversation exports: ChatGPT's `conversations.json` (each conversation a `mapping` tree of
// message nodes, `current_node` the last message of the branch shown) and Claude.ai's
// (`chat_messages` in order). Each conversation is one retain input for the inbox, or, verbatim,
// one note of kind `conversation`.

interface Turn {
  role: 'User' | 'Assistant';
  text: string;
}

interface Conversation {
  id: string;
  title: string;
  /** When it began, as the export says (ISO), if it says. */
  created?: string;
  turns: Turn[];
}

/** The text of a ChatGPT message's content: its string parts (an image or a file is named, not kept). */
function chatgptText(content: unknown): string {
  if (!isObject(content)) return '';
  if (Array.isArray(content.parts)) {
    return content.parts
      .map((p) => (typeof p === 'string' ? p : isObject(p) ? `[${text(p.content_type) ?? 'attachment'}]` : ''))
      .filter((p) => p.trim())
      .join('\n\n');
  }
  return typeof content.text === 'string' ? content.text : '';
}

/** The branch of a ChatGPT conversation that ends at `current_node`, root first: edits and regenerations on other branches are left out. */
function chatgptConversation(c: Record<string, unknown>): Conversation | string {
  const id = text(c.conversation_id) ?? text(c.id);
  if (!id) return 'a conversation with no id';
  const mapping = isObject(c.mapping) ? c.mapping : undefined;
  if (!mapping) return `conversation ${id}: no "mapping" of messages`;
  const end = text(c.current_node);
  if (!end || !isObject(mapping[end])) return `conversation ${id}: "current_node" is not one of its messages`;
  const branch: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (let at: string | undefined = end; at && isObject(mapping[at]) && !seen.has(at); ) {
    seen.add(at);
    const node = mapping[at] as Record<string, unknown>;
    branch.push(node);
    at = text(node.parent);
  }
  const turns: Turn[] = [];
  for (const node of branch.reverse()) {
    const m = node.message;
    // A node with no message (the root, a deleted one) is skipped; so are system and tool turns.
    if (!isObject(m) || !isObject(m.author)) continue;
    const role = m.author.role === 'user' ? 'User' : m.author.role === 'assistant' ? 'Assistant' : undefined;
    if (!role || (isObject(m.metadata) && m.metadata.is_visually_hidden_from_conversation === true)) continue;
    const said = chatgptText(m.content).trim();
    if (said) turns.push({ role, text: said });
  }
  const created = typeof c.create_time === 'number' ? new Date(c.create_time * 1000).toISOString() : undefined;
  return { id, title: text(c.title)?.trim() ?? 'Untitled conversation', created, turns };
}

/** A Claude.ai message's text: its text blocks (else `text`), then what was attached to it, by name, with the text Claude extracted. */
function claudeText(m: Record<string, unknown>): string {
  const blocks = Array.isArray(m.content)
    ? m.content.filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string').map((b) => (b as { text: string }).text)
    : [];
  const parts = [blocks.length ? blocks.join('\n\n') : typeof m.text === 'string' ? m.text : ''];
  for (const a of Array.isArray(m.attachments) ? m.attachments : []) {
    if (!isObject(a)) continue;
    const name = text(a.file_name) ?? 'attachment';
    parts.push(
      typeof a.extracted_content === 'string' && a.extracted_content.trim() ? `Attached ${name}:\n\n${a.extracted_content.trim()}` : `[attached ${name}]`,
    );
  }
  for (const f of Array.isArray(m.files) ? m.files : []) if (isObject(f)) parts.push(`[file ${text(f.file_name) ?? 'unnamed'}]`);
  return parts.filter((p) => p.trim()).join('\n\n');
}

function claudeConversation(c: Record<string, unknown>): Conversation | string {
  const id = text(c.uuid);
  if (!id) return 'a conversation with no uuid';
  if (!Array.isArray(c.chat_messages)) return `conversation ${id}: no "chat_messages"`;
  const turns: Turn[] = [];
  for (const m of c.chat_messages) {
    if (!isObject(m)) continue;
    const role = m.sender === 'human' ? 'User' : m.sender === 'assistant' ? 'Assistant' : undefined;
    const said = claudeText(m).trim();
    if (role && said) turns.push({ role, text: said });
  }
  return { id, title: text(c.name)?.trim() ?? 'Untitled conversation', created: text(c.created_at), turns };
}

function transcript(format: string, c: Conversation): string {
  const head = `Conversation: ${c.title} (${[c.created, `${format} ${c.id}`].filter(Boolean).join(', ')})`;
  return [head, ...c.turns.map((t) => `**${t.role}:** ${t.text}`)].join('\n\n');
}

/** A conversations.json read with `parse` for each conversation: inbox items, or notes with `verbatim`. */
function readConversations(
  format: 'chatgpt' | 'claude',
  file: string,
  verbatim: boolean,
  parse: (c: Record<string, unknown>) => Conversation | string,
): ReadInput {
  const value = parseJsonFile(readInputFile(file), file);
  const name = path.basename(file);
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.conversations) ? value.conversations : undefined;
  if (!list) return { items: [], failed: [{ item: name, reason: `not a ${format} export: expected a list of conversations` }] };
  const items: (NoteItem | ConversationItem)[] = [];
  const failed: ImportFailure[] = [];
  list.forEach((raw, i) => {
    const label = `${name} conversation #${i + 1}`;
    const c = isObject(raw) ? parse(raw) : 'not a conversation object';
    if (typeof c === 'string') return void failed.push({ item: label, reason: c });
    if (!c.turns.length) return void failed.push({ item: `${label} (${c.id})`, reason: 'no message from the user or the assistant' });
    const id = c.id;
    const where = `${label} (${JSON.stringify(c.title)})`;
    if (!verbatim) {
      items.push({ type: 'conversation', id, label: where, transcript: transcript(format, c), source: `${format} ${id}` });
      return;
    }
    items.push({
      type: 'note',
      id,
      label: where,
      title: c.title,
      kind: 'conversation',
      date: dayOf(c.created),
      body: c.turns.map((t) => `**${t.role}:** ${t.text}`).join('\n\n'),
      extra: { conversation_id: id, ...(c.created ? { created_at: c.created } : {}) },
    });
  });
  return { items, failed };
}

export const readChatgpt = (file: string, o: { verbatim?: boolean } = {}) => readConversations('chatgpt', file, Boolean(o.verbatim), chatgptConversation);
export const readClaude = (file: string, o: { verbatim?: boolean } = {}) => readConversations('claude', file, Boolean(o.verbatim), claudeConversation);
