/** Reasoning models may think out loud before answering; that text is not the answer. */
const THINKING = /<think(?:ing)?>[\s\S]*?<\/think(?:ing)?>/gi;
const FENCE = /```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)\r?\n?```/;

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The JSON object in a model's text answer: the whole text, else a fenced block, else the span from
 * the first `{` to the last `}`. Undefined when there is none (garbage, a list, prose).
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const clean = text.replace(THINKING, '').trim();
  const direct = asObject(clean);
  if (direct) return direct;
  const fenced = FENCE.exec(clean);
  if (fenced) {
    const inFence = asObject(fenced[1].trim());
    if (inFence) return inFence;
  }
  const start = clean.indexOf('{');
  const end = clean.lastIndexOf('}');
  return start >= 0 && end > start ? asObject(clean.slice(start, end + 1)) : undefined;
}
