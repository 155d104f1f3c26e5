// What must never be stored: the one place that decides it. Text inside <private>…</private> is
// dropped, and strings that look like secrets are replaced by [redacted], before anything taken
// from an agent host (a captured session, a hook's input, a tool call made through a host's
// entry) is written. Callers record how many were taken out, never what.

export const REDACTED = '[redacted]';

/** How many spans were taken out of a text: private ones dropped, secrets replaced. */
export interface Redactions {
  private: number;
  secrets: number;
}

/**
 * A private span runs to its closing tag; one left open runs to the end of the text, so a
 * forgotten closing tag keeps the rest private rather than storing it.
 */
const PRIVATE = /<private\b[^>]*>[\s\S]*?(?:<\/private\s*>|$)/gi;

/** Secrets whose whole match is replaced. */
const WHOLE_SECRETS: RegExp[] = [
  // PEM private key blocks (RSA, EC, OPENSSH, PGP, …), an unterminated one to the end of the text
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  // AWS access key ids
  /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g,
  // OpenAI, Anthropic and similar API keys (sk-…, sk-proj-…, sk-ant-…)
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  // GitHub tokens
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  // Slack tokens
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  // Google API keys
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
  // JSON Web Tokens
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** Secrets whose name stays and whose value is replaced: `Bearer …`, `password=…`. */
const VALUE_SECRETS: RegExp[] = [
  /(\b[Bb]earer\s+)[A-Za-z0-9._~+/=-]{8,}/g,
  /(\b(?:password|passwd|pwd|passphrase|secret|client_secret|api[_-]?key|access[_-]?token|auth[_-]?token)\b["']?\s*[:=]\s*)("[^"\n]*"|'[^'\n]*'|[^\s,;"'&]+)/gi,
];

const CLOSED = /<\/private\s*>$/i;

/**
 * The text with private spans dropped and secrets replaced, and how many of each. `inPrivate`: the
 * text continues a private span an earlier text left open (a session's earlier message), so it is
 * private up to its first closing tag; `open` in the answer says whether a span is open at its end.
 */
export function redact(text: string, o: { inPrivate?: boolean } = {}): { text: string; redactions: Redactions; open: boolean } {
  const redactions: Redactions = { private: 0, secrets: 0 };
  let open = false;
  let out = (o.inPrivate ? `<private>${text}` : text).replace(PRIVATE, (span: string) => {
    redactions.private++;
    open = !CLOSED.test(span);
    return '';
  });
  for (const re of WHOLE_SECRETS) {
    out = out.replace(re, () => {
      redactions.secrets++;
      return REDACTED;
    });
  }
  for (const re of VALUE_SECRETS) {
    out = out.replace(re, (match: string, name: string, value: string) => {
      if (value === REDACTED) return match;
      redactions.secrets++;
      return `${name}${REDACTED}`;
    });
  }
  return { text: out, redactions, open };
}

/** Add one count of redactions to another. */
export function addRedactions(a: Redactions, b: Redactions): Redactions {
  return { private: a.private + b.private, secrets: a.secrets + b.secrets };
}

export const noRedactions = (): Redactions => ({ private: 0, secrets: 0 });

/**
 * Every string in a value (an object of tool arguments, a list of messages) redacted, and the
 * counts summed: the one way structured input from a host is cleaned.
 */
export function redactDeep<T>(value: T): { value: T; redactions: Redactions } {
  let total = noRedactions();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const r = redact(v);
      total = addRedactions(total, r.redactions);
      return r.text;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return { value: walk(value) as T, redactions: total };
}
