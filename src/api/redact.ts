import { trace } from '../corpus/trace/trace.js';
import { redactDeep } from '../pipelines/redact.js';

/**
 * A tool's arguments with private spans and secrets taken out (docs/agents.md#privacy); the trace
 * says how many, never what.
 */
export function redactToolArgs(root: string, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const r = redactDeep(args);
  if (r.redactions.private || r.redactions.secrets) trace(root, 'redact', { tool, ...r.redactions });
  return r.value;
}
