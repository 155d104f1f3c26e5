import type { ChatMessage, StructuredCallOptions, StructuredLLM } from '../../src/llm/types.js';

/** The text the distill call was asked about (between the conversation tags). */
export function conversationOf(messages: ChatMessage[]): string {
  const user = messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  const m = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(user);
  return m ? m[1] : user;
}

/** The ids of the notes shown to the merge judge. */
export function shownIds(messages: ChatMessage[]): string[] {
  return [
    ...messages
      .map((m) => m.content)
      .join('\n')
      .matchAll(/^id: (.+)$/gm),
  ].map((m) => m[1]);
}

export interface StubCall {
  name: string;
  messages: ChatMessage[];
}

/** A stub answer the model gave as text that holds no JSON object. */
export class Unparseable {
  constructor(readonly text: string) {}
}

/**
 * A StructuredLLM whose answers come from handlers per function name; every call is recorded.
 * A handler returning null is a transport failure; an Unparseable is an answer that was not JSON.
 */
export function stubLlm(handlers: Record<string, (messages: ChatMessage[], call: number) => unknown>): StructuredLLM & { calls: StubCall[] } {
  const calls: StubCall[] = [];
  const fn = async (messages: ChatMessage[], o: StructuredCallOptions) => {
    calls.push({ name: o.name, messages });
    const h = handlers[o.name];
    const answer = h ? h(messages, calls.filter((c) => c.name === o.name).length) : null;
    if (answer instanceof Unparseable) {
      o.onFailure?.(`answer is not a JSON object: ${answer.text}`, 'unparseable');
      return null;
    }
    if (answer === null || answer === undefined) o.onFailure?.('stub: no answer');
    return (answer ?? null) as Record<string, unknown> | null;
  };
  return Object.assign(fn, { calls, model: 'stub-model' });
}

export function candidate(
  o: Partial<{ kind: string; topic: string; title: string; slug: string; content: string; choice: string; alternatives: string[]; rationale: string }>,
) {
  return { kind: 'concept', topic: '', title: '', slug: '', content: '', ...o };
}
