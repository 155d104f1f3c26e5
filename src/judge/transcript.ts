import { segmentBlocks, segmentChars, segmentText } from './segment.js';

/** A chat message as hosts hand it over: any role, content as text or a list of parts. */
export interface InputMessage {
  role: string;
  content?: unknown;
}

/** Only what people said is distilled; tool output, system prompts and the like never become memories. */
const DISTILLED_ROLES = new Set(['user', 'assistant']);

/** Memories a host injected back into the conversation are not new information. */
const RECALL_BLOCK = /<recall\b[^>]*>[\s\S]*?<\/recall\s*>/gi;

export function stripRecall(text: string): string {
  return text.replace(RECALL_BLOCK, '');
}

/** The text of message content given as a string or as a list of parts. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Each distillable message as one `role: text` block, recall blocks removed, empty ones dropped. */
export function transcriptBlocks(messages: InputMessage[]): string[] {
  return messages
    .filter((m) => DISTILLED_ROLES.has(String(m.role).toLowerCase()))
    .map((m) => ({ role: String(m.role).toLowerCase(), text: stripRecall(messageText(m.content)).trim() }))
    .filter((m) => m.text)
    .map((m) => `${m.role}: ${m.text}`);
}

const BLOCK_SEPARATOR = '\n\n';

/** The conversation as the distiller reads it. */
export function transcriptText(messages: InputMessage[]): string {
  return transcriptBlocks(messages).join(BLOCK_SEPARATOR);
}

/** The conversation in segments that keep whole messages together wherever they fit. */
export function transcriptSegments(messages: InputMessage[], max = segmentChars()): string[] {
  return segmentBlocks(transcriptBlocks(messages), BLOCK_SEPARATOR, max);
}

/** A plain-text transcript in segments, recall blocks removed. */
export function textSegments(text: string, max = segmentChars()): string[] {
  return segmentText(stripRecall(text), max);
}
