import type { ContextResult } from '../api/context.js';

/** A context bundle for people: the bundle itself, which is text already (empty when nothing fits). */
export function contextText(r: ContextResult): string {
  return r.text.trim();
}
