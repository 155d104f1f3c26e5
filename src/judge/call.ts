import { trace } from '../corpus/trace/trace.js';
import { ZkError } from '../errors.js';
import type { ChatMessage, LlmFailureKind, StructuredLLM } from '../llm/types.js';
import { correctionMessages, notJsonMessages, PROMPT_VERSION } from './prompts.js';
import { fitToSchema, isPlainObject } from './repair.js';
import { schemaProblems, type SchemaProblem } from '../validate.js';

/** Where and how a judge call is recorded. */
export interface JudgeContext {
  /** Corpus root whose trace receives one line per call; without it nothing is traced. */
  root?: string;
  /** Fields added to that trace line (the input's hash, the candidate being placed, …). */
  trace?: Record<string, unknown>;
  /** Model id for the trace when the LLM does not carry one. */
  model?: string;
}

/**
 * A judged answer, or why there is none. Model failures are values, never exceptions;
 * `unreachable` marks a failure because the endpoint cannot be used at all.
 */
export type JudgeResult<T> = { ok: true; value: T; repairs: string[]; attempts: number } | JudgeFailure;

export interface JudgeFailure {
  ok: false;
  reason: string;
  attempts: number;
  unreachable?: true;
}

/**
 * The error of a failed judge call: `llm_unreachable` with the adapter's reason (which names the
 * endpoint and the cause) when the endpoint cannot be used at all, so callers stop rather than
 * fail every later call alike; else `llm_failed`, saying what could not be judged and why.
 */
export function judgeError(failed: JudgeFailure, what: string, details?: Record<string, unknown>): ZkError {
  if (failed.unreachable) return new ZkError('llm_unreachable', failed.reason, details);
  return new ZkError('llm_failed', `the LLM could not ${what}: ${failed.reason}`, details);
}

type Answer = Record<string, unknown>;

/** One kind of judge call: its function, schema, repairs, rules beyond the schema, and result. */
export interface JudgeSpec<T> {
  call: string;
  name: string;
  description: string;
  schema: Record<string, unknown>;
  /** Repair this call's harmless slips in place, describing each in `repairs`. */
  repair(answer: Answer, repairs: string[]): void;
  /** Rules the schema cannot say; run on a schema-valid answer. */
  check?(answer: Answer): string[];
  /** The typed result of a valid answer. */
  build(answer: Answer): T;
  /** What of the result the trace keeps (default: the result itself). */
  traceResult?(value: T): unknown;
}

type Accepted<T> = { value: T } | { errors: string[] };

function accept<T>(spec: JudgeSpec<T>, answer: Answer, repairs: string[]): Accepted<T> {
  const fitted = fitToSchema(structuredClone(answer), spec.schema, '', repairs);
  if (!isPlainObject(fitted)) return { errors: ['answer is not an object'] };
  spec.repair(fitted, repairs);
  const errors = schemaProblems(spec.schema, fitted).map(answerProblem);
  if (!errors.length) errors.push(...(spec.check?.(fitted) ?? []));
  return errors.length ? { errors } : { value: spec.build(fitted) };
}

/**
 * Ask the model, repair and validate its answer, and retry once when it does not fit (told the
 * validation errors) or was not JSON at all (told so); then the call has failed. A transport
 * failure is not retried here: the adapter has already retried what was worth it. Every call
 * leaves one trace line carrying the prompt version and the model id.
 */
export async function runJudge<T>(llm: StructuredLLM, spec: JudgeSpec<T>, messages: ChatMessage[], ctx: JudgeContext = {}): Promise<JudgeResult<T>> {
  const record = (result: JudgeResult<T>, raw: unknown, invalid: string[], unparsed?: string) => {
    if (ctx.root) {
      trace(ctx.root, 'judge', {
        call: spec.call,
        prompt_version: PROMPT_VERSION,
        model: llm.model ?? ctx.model ?? null,
        ...ctx.trace,
        ok: result.ok,
        attempts: result.attempts,
        ...(result.ok ? { repairs: result.repairs, result: spec.traceResult ? spec.traceResult(result.value) : result.value } : { reason: result.reason }),
        ...(invalid.length ? { invalid } : {}),
        ...(unparsed !== undefined ? { not_json: unparsed } : {}),
        ...(!result.ok || result.repairs.length > 0 ? { answer: raw ?? null } : {}),
      });
    }
    return result;
  };

  let conversation = messages;
  let invalid: string[] = [];
  let raw: unknown;
  let unparsed: string | undefined;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const failure: { reason: string; kind: LlmFailureKind } = { reason: 'the model gave no answer', kind: 'transport' };
    let answer: Answer | null;
    try {
      answer = await llm(conversation, {
        schema: spec.schema,
        name: spec.name,
        description: spec.description,
        onFailure: (reason, kind = 'transport') => Object.assign(failure, { reason, kind }),
      });
    } catch (err) {
      // An injected model that throws is treated like one that failed: the caller gets a reason.
      answer = null;
      Object.assign(failure, { reason: `the model call threw: ${String((err as Error)?.message ?? err).split('\n')[0]}`, kind: 'transport' });
    }
    if (!answer) {
      const { reason, kind } = failure;
      if (kind === 'unparseable' && attempt === 1) {
        unparsed = reason;
        conversation = [...messages, ...notJsonMessages(spec.name)];
        continue;
      }
      const twice = kind === 'unparseable' && unparsed !== undefined ? `no JSON answer twice: ${reason}` : reason;
      return record({ ok: false, reason: twice, attempts: attempt, ...(kind === 'unreachable' ? { unreachable: true } : {}) }, raw, invalid, unparsed);
    }
    raw = answer;
    const repairs: string[] = [];
    let accepted: Accepted<T>;
    try {
      accepted = accept(spec, answer, repairs);
    } catch (err) {
      accepted = { errors: [`answer could not be read: ${(err as Error).message}`] };
    }
    if ('value' in accepted) return record({ ok: true, value: accepted.value, repairs, attempts: attempt }, raw, invalid, unparsed);
    invalid = accepted.errors;
    conversation = [...messages, ...correctionMessages(answer, invalid, spec.name)];
  }
  return record({ ok: false, reason: `invalid answer twice: ${invalid.join('; ')}`, attempts: 2 }, raw, invalid, unparsed);
}

/** A problem with a model's answer, in one line for the trace and the retry prompt. */
function answerProblem(e: SchemaProblem): string {
  const where = e.instancePath ? e.instancePath.slice(1) : 'answer';
  const allowed = e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : '';
  return `${where} ${e.message}${allowed}`;
}
