import { ZkError } from './errors.js';

/** Environment variables, as `process.env` holds them. */
export type Env = Record<string, string | undefined>;

/**
 * A value given on the command line (or as an MCP server flag) for one setting: it wins over the
 * environment, and an error about it names the flag.
 */
export interface Override {
  value: string | undefined;
  flag: string;
}

export interface NumberRule {
  integer?: boolean;
  /** Allow 0 (else the value must be > 0). */
  zero?: boolean;
}

/**
 * Every `ZK_MEMORY_*` setting is read here and nowhere else, with one rule: a blank value is
 * unset, a malformed number is a usage error (exit 2) that names where the value came from (the
 * flag, else the variable). Flags given for one call are overrides of the same names, so a flag and
 * its variable can never disagree about what they mean.
 */
export class Settings {
  constructor(
    private readonly env: Env = {},
    private readonly overrides: Readonly<Record<string, Override>> = {},
  ) {}

  /** The environment these settings were read from, for a process started on the call's behalf. */
  environment(): Env {
    return { ...this.env };
  }

  /** These settings with some values given for one call (flags), winning over the environment. */
  with(overrides: Record<string, Override>): Settings {
    const given = Object.fromEntries(Object.entries(overrides).filter(([, o]) => o.value !== undefined && o.value.trim() !== ''));
    return new Settings(this.env, { ...this.overrides, ...given });
  }

  /** Where a value comes from, for messages: the flag when one was given, else the variable. */
  origin(name: string): string {
    return this.overrides[name]?.flag ?? name;
  }

  /** A text setting; blank counts as unset. */
  text(name: string): string | undefined {
    const v = (this.overrides[name]?.value ?? this.env[name] ?? '').trim();
    return v || undefined;
  }

  /** A number setting, checked; `fallback` when unset. */
  number(name: string, fallback: number, rule: NumberRule = {}): number {
    const raw = this.text(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    const ok = Number.isFinite(n) && (rule.zero ? n >= 0 : n > 0) && (!rule.integer || Number.isInteger(n));
    if (!ok) {
      const kind = rule.integer ? 'a whole number' : 'a number';
      throw new ZkError('usage', `${this.origin(name)} takes ${kind} ${rule.zero ? '>= 0' : '> 0'}, not ${JSON.stringify(raw)}`);
    }
    return n;
  }

  /** A yes/no setting: 1, true, yes or on. */
  flag(name: string): boolean {
    return /^(?:1|true|yes|on)$/i.test(this.text(name) ?? '');
  }

  // The settings the library reads, one accessor each (the README's environment table).

  root(): string | undefined {
    return this.text('ZK_MEMORY_ROOT');
  }

  source(): string | undefined {
    return this.text('ZK_MEMORY_SOURCE');
  }

  backend(): string | undefined {
    return this.text('ZK_MEMORY_BACKEND');
  }

  rgPath(): string | undefined {
    return this.text('ZK_MEMORY_RG');
  }

  /** Where this corpus's search index lives, whatever the file system (else decided per file system). */
  indexDir(): string | undefined {
    return this.text('ZK_MEMORY_INDEX_DIR');
  }

  /**
   * How often (seconds) a search checks every note file for changes made by other programs. In
   * between it trusts the change journal and the root folder's own metadata (see src/search/changes.ts),
   * which cannot see an in-place edit by another program; 0, the default, checks every note before
   * every search, so a search never misses a change.
   */
  indexScanSeconds(): number {
    return this.number('ZK_MEMORY_INDEX_SCAN_SECONDS', 0, { zero: true });
  }

  /** Up to this many notes, every search checks every note file (it costs a few milliseconds). */
  indexScanBelow(): number {
    return this.number('ZK_MEMORY_INDEX_SCAN_BELOW', 2000, { integer: true, zero: true });
  }

  /**
   * Past this many note vectors the vector table gets an approximate (IVF_PQ) index; below it,
   * an exact scan is fast enough and needs no index build.
   */
  vectorIndexAbove(): number {
    return this.number('ZK_MEMORY_VECTOR_INDEX_ABOVE', 10_000, { integer: true });
  }

  /**
   * The default, 30 s or the stale window plus 10 s if that is longer, lets a waiter outlast the
   * stale window, so a dead lock is taken over before anyone gives up.
   */
  lockTimeoutMs(): number {
    return this.number('ZK_MEMORY_LOCK_TIMEOUT', Math.max(30, this.lockStaleMs() / 1000 + 10)) * 1000;
  }

  /** The longest a holder keeps its lock fresh, so a stuck holder cannot keep it forever. */
  lockMaxHoldMs(): number {
    return this.number('ZK_MEMORY_LOCK_MAX_HOLD', 300) * 1000;
  }

  /** Never below 2 s: a shorter window would take over locks of live holders between two heartbeats. */
  lockStaleMs(): number {
    return Math.max(2, this.number('ZK_MEMORY_LOCK_STALE', 10)) * 1000;
  }

  maxBodyBytes(): number {
    return this.number('ZK_MEMORY_MAX_BODY', 5 * 1024 * 1024, { integer: true });
  }

  leaseMs(): number {
    return this.number('ZK_MEMORY_LEASE_SECONDS', 600) * 1000;
  }

  ingestClaimTtlMs(): number {
    return this.number('ZK_MEMORY_INGEST_CLAIM_TTL', 30 * 60) * 1000;
  }

  ingestMaxFileBytes(): number {
    return this.number('ZK_MEMORY_INGEST_MAX_FILE', 64 * 1024 * 1024, { integer: true });
  }

  /** How long one document's conversion may take before it is refused. */
  ingestConvertSeconds(): number {
    return this.number('ZK_MEMORY_INGEST_CONVERT_SECONDS', 60);
  }

  /** How the tool writes new links: `markdown` or `wikilink` (checked by src/corpus/graph/related.ts). */
  linkStyle(): string | undefined {
    return this.text('ZK_MEMORY_LINK_STYLE');
  }

  /** Commit each write's own files to git when the corpus is in a git work tree (`--commit`). */
  gitCommit(): boolean {
    return this.flag('ZK_MEMORY_GIT_COMMIT');
  }

  segmentChars(): number {
    return this.number('ZK_MEMORY_SEGMENT_CHARS', 24_000, { integer: true });
  }

  /**
   * Whether commands use the corpus's resident server (docs/server.md): `auto` (the default) asks
   * one when it runs and starts one for the next call when none does, `on` requires one, `off`
   * never uses or starts one.
   */
  serverMode(): 'auto' | 'on' | 'off' {
    const v = (this.text('ZK_MEMORY_SERVER') ?? 'auto').toLowerCase();
    if (v === 'auto' || v === 'on' || v === 'off') return v;
    throw new ZkError('usage', `${this.origin('ZK_MEMORY_SERVER')} takes auto, on or off, not ${JSON.stringify(v)}`);
  }

  /**
   * Whether the built-in sentence embedder is used when no embedding endpoint is configured
   * (docs/search.md): `local` (the default) uses it, `off` leaves search lexical.
   */
  embedMode(): 'local' | 'off' {
    const v = (this.text('ZK_MEMORY_EMBED') ?? 'local').toLowerCase();
    if (v === 'local' || v === 'off') return v;
    throw new ZkError('usage', `${this.origin('ZK_MEMORY_EMBED')} takes local or off, not ${JSON.stringify(v)}`);
  }

  /** A folder holding another sentence model for the built-in embedder (else the bundled all-MiniLM-L6-v2). */
  localEmbedModel(): string | undefined {
    return this.text('ZK_MEMORY_EMBED_LOCAL_MODEL');
  }

  /** How long (seconds) a server started in the background waits without a request before it exits. */
  serverIdleSeconds(): number {
    return this.number('ZK_MEMORY_SERVER_IDLE_SECONDS', 1800);
  }

  /** How long (seconds) an HTTP client may take to send a request's headers and body before it is cut off. */
  httpRequestSeconds(): number {
    return this.number('ZK_MEMORY_HTTP_REQUEST_SECONDS', 120);
  }

  /** How long (seconds) an HTTP client may take to send a request's headers (at most the request's time). */
  httpHeadersSeconds(): number {
    return this.number('ZK_MEMORY_HTTP_HEADERS_SECONDS', 30);
  }

  /** How many HTTP connections a server holds at once; more are closed as they come. */
  httpMaxConnections(): number {
    return this.number('ZK_MEMORY_HTTP_MAX_CONNECTIONS', 512, { integer: true });
  }

  /** How many HTTP connections a server holds at once from one address (a reverse proxy is one). */
  httpMaxConnectionsPerAddress(): number {
    return this.number('ZK_MEMORY_HTTP_MAX_CONNECTIONS_PER_ADDRESS', 128, { integer: true });
  }

  /** How long an OAuth authorization code may wait for its exchange, in ms (ZK_MEMORY_OAUTH_CODE_SECONDS; default 300). */
  oauthCodeMs(): number {
    return Math.round(this.number('ZK_MEMORY_OAUTH_CODE_SECONDS', 300) * 1000);
  }

  /** The user's runtime folder (XDG_RUNTIME_DIR), where the servers' sockets live when it is set. */
  runtimeDir(): string | undefined {
    return this.text('XDG_RUNTIME_DIR');
  }

  /**
   * How long a hook may take, in ms (ZK_MEMORY_HOOK_TIMEOUT, seconds; default 1.8): past it, the
   * hook answers its host empty and exits 0 (docs/agents.md).
   */
  hookTimeoutMs(): number {
    return Math.round(this.number('ZK_MEMORY_HOOK_TIMEOUT', 1.8) * 1000);
  }

  /** Redact what MCP tools write (private spans, secrets): set by `setup` in a host's MCP entry. */
  redact(): boolean {
    return this.flag('ZK_MEMORY_REDACT');
  }

  /** The user's state folder (XDG_STATE_HOME), where HTTP tokens are kept when it is set (else ~/.local/state). */
  stateHome(): string | undefined {
    return this.text('XDG_STATE_HOME');
  }

  /** The user's config folder (XDG_CONFIG_HOME), where the registry of corpora by name is kept when it is set (else ~/.config). */
  configHome(): string | undefined {
    return this.text('XDG_CONFIG_HOME');
  }

  /** Print stack traces of unexpected errors. */
  debug(): boolean {
    return Boolean(this.text('ZK_MEMORY_DEBUG'));
  }

  /** A fault to inject, for crash tests (`ingest-after-write`, …). */
  fault(): string | undefined {
    return this.text('ZK_MEMORY_FAULT');
  }
}
