import { now } from '../context.js';

/**
 * How a POST ended: a response (any status), or no response at all. `unreachable` is set, with its
 * cause, when the endpoint cannot be used at all (see unreachableCause); that attempt was not repeated.
 */
export type PostOutcome = { status: number; text: string; attempts: number; unreachable?: string } | { error: string; attempts: number; unreachable?: string };

export interface PostOptions {
  headers: Record<string, string>;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  maxRetryAfterMs: number;
  /** Whether a response with this status and body is worth another attempt. */
  retryable?: (status: number, text: string) => boolean;
  /** How a wait between attempts is made (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

type Undici = typeof import('undici');

/** undici is loaded on the first request, so commands that never call a model never pay for it. */
function loadUndici(): Promise<Undici> {
  return import('undici');
}

/** 429 and server errors are transient; 501 (not implemented) is an answer, not a hiccup. */
export function transientStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), if it asks. */
export function retryAfterMs(header: string | string[] | undefined, at = now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - at);
}

/** Exponential backoff with jitter, so many clients retrying at once spread out. */
function backoffDelay(attempt: number, o: PostOptions): number {
  const exp = o.backoffMs * 2 ** attempt;
  return Math.min(o.maxRetryAfterMs, exp + Math.random() * o.backoffMs);
}

const timer = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Attempt = { status: number; text: string; retryAfter?: number } | { error: string; timedOut: boolean; code?: string };

const DNS_FAILURE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const TLS_FAILURE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|EPROTO$)/;

/**
 * Why an attempt shows the endpoint cannot be used at all, or undefined when it may yet answer:
 * nothing listening, no such host, a TLS handshake that fails, or the key refused. Asking again
 * gets the same answer, so such an attempt is never retried, and callers stop rather than go on
 * to the next call. The one place that tells this from a hiccup (429, 5xx, a reset, a timeout).
 */
function unreachableCause(r: Attempt): string | undefined {
  if ('status' in r) {
    if (r.status === 401) return 'HTTP 401, the key was not accepted';
    if (r.status === 403) return 'HTTP 403, access denied';
    return undefined;
  }
  if (!r.code) return undefined;
  if (r.code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED)';
  if (DNS_FAILURE.has(r.code)) return `host not found (${r.code})`;
  if (TLS_FAILURE.test(r.code)) return `TLS failed (${r.code})`;
  return undefined;
}

async function attemptOnce(url: string, body: string, o: PostOptions): Promise<Attempt> {
  const { request } = await loadUndici();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), o.timeoutMs);
  try {
    const res = await request(url, {
      method: 'POST',
      headers: o.headers,
      body,
      signal: abort.signal,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, retryAfter: retryAfterMs(res.headers['retry-after']) };
  } catch (err) {
    if (abort.signal.aborted) return { error: `timed out after ${o.timeoutMs / 1000} s`, timedOut: true };
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    return { error: `network error${code ? ` ${code}` : ''}: ${String(e.message ?? err).split('\n')[0]}`, timedOut: false, code };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POST a JSON body, retrying transient failures (429, 5xx, network errors) with backoff; a
 * Retry-After is honoured up to `maxRetryAfterMs`. A timeout is not retried: a model too slow once
 * is usually as slow again. Nor is an unreachable endpoint (unreachableCause): it ends the call at once.
 */
export async function postJson(url: string, payload: unknown, o: PostOptions): Promise<PostOutcome> {
  const body = JSON.stringify(payload);
  const retryable = o.retryable ?? transientStatus;
  const sleep = o.sleep ?? timer;
  for (let attempt = 0; ; attempt++) {
    const r = await attemptOnce(url, body, o);
    const last = attempt >= o.retries;
    const unreachable = unreachableCause(r);
    if (unreachable) {
      return 'error' in r ? { error: r.error, attempts: attempt + 1, unreachable } : { status: r.status, text: r.text, attempts: attempt + 1, unreachable };
    }
    if ('error' in r) {
      if (r.timedOut || last) return { error: r.error, attempts: attempt + 1 };
      await sleep(backoffDelay(attempt, o));
      continue;
    }
    if (last || !retryable(r.status, r.text)) return { status: r.status, text: r.text, attempts: attempt + 1 };
    await sleep(r.retryAfter !== undefined ? Math.min(r.retryAfter, o.maxRetryAfterMs) : backoffDelay(attempt, o));
  }
}
