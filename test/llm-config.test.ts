import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ZkError } from '../src/errors.js';
import { addEmbedOptions, addLlmOptions } from '../src/cli/invocation.js';
import { flagOverrides } from '../src/command-line/setting-flags.js';
import { embedConfig, llmConfig, llmConfigured, requireLlmConfig } from '../src/llm/config.js';
import { requireLlm } from '../src/llm/require.js';
import { Settings, type Env } from '../src/settings.js';

/** Settings as a command line gives them: flags (parsed by the real options) over the environment. */
function settingsFrom(args: string[], env: Env = {}): Settings {
  const cmd = addEmbedOptions(addLlmOptions(new Command('x').exitOverride()));
  cmd.parse(args, { from: 'user' });
  return new Settings(env).with(flagOverrides(cmd.opts()));
}

describe('settings', () => {
  it('an LLM is configured only when base and model are both set', () => {
    expect(llmConfig(new Settings({}))).toBeUndefined();
    expect(llmConfigured(settingsFrom(['--llm-base', 'http://h']))).toBe(false);
    expect(llmConfigured(new Settings({ ZK_MEMORY_LLM_BASE: 'http://h', ZK_MEMORY_LLM_MODEL: 'm' }))).toBe(true);
  });

  it('flags win over the environment; defaults apply; blank is unset', () => {
    const s = settingsFrom(['--llm-base', 'http://flag', '--llm-timeout', '2.5', '--llm-max-tokens', '100'], {
      ZK_MEMORY_LLM_BASE: 'http://env',
      ZK_MEMORY_LLM_MODEL: 'm',
      ZK_MEMORY_LLM_KEY: 'k',
    });
    expect(llmConfig(s)).toMatchObject({ base: 'http://flag', model: 'm', key: 'k', timeoutMs: 2500, maxTokens: 100, retries: 3 });
    const d = llmConfig(new Settings({ ZK_MEMORY_LLM_BASE: 'b', ZK_MEMORY_LLM_MODEL: 'm', ZK_MEMORY_LLM_MAX_TOKENS: '' }));
    expect(d?.maxTokens).toBe(8192);
    expect(d?.key).toBeUndefined();
  });

  it('a malformed number is a usage error naming the flag, or the variable when it came from the environment', () => {
    const env = { ZK_MEMORY_LLM_BASE: 'b', ZK_MEMORY_LLM_MODEL: 'm', ZK_MEMORY_EMBED_BASE: 'b', ZK_MEMORY_EMBED_MODEL: 'm' };
    expect(() => llmConfig(settingsFrom(['--llm-timeout', 'soon'], env))).toThrow(/^--llm-timeout takes a number > 0, not "soon"$/);
    expect(() => llmConfig(settingsFrom(['--llm-max-tokens', '1.5'], env))).toThrow(/whole number/);
    expect(llmConfig(settingsFrom(['--llm-retries', '0'], env))?.retries).toBe(0);
    expect(() => embedConfig(new Settings({ ...env, ZK_MEMORY_EMBED_RETRIES: 'x' }))).toThrow(/^ZK_MEMORY_EMBED_RETRIES takes a whole number >= 0, not "x"$/);
    expect(() => embedConfig(settingsFrom(['--embed-retries', '-1'], env))).toThrow(/^--embed-retries takes/);
    // Every number setting follows the same rule: none is silently ignored.
    for (const [name, read] of [
      ['ZK_MEMORY_LOCK_TIMEOUT', (s: Settings) => s.lockTimeoutMs()],
      ['ZK_MEMORY_LOCK_STALE', (s: Settings) => s.lockStaleMs()],
      ['ZK_MEMORY_MAX_BODY', (s: Settings) => s.maxBodyBytes()],
      ['ZK_MEMORY_LEASE_SECONDS', (s: Settings) => s.leaseMs()],
      ['ZK_MEMORY_INGEST_CLAIM_TTL', (s: Settings) => s.ingestClaimTtlMs()],
      ['ZK_MEMORY_INGEST_MAX_FILE', (s: Settings) => s.ingestMaxFileBytes()],
      ['ZK_MEMORY_SEGMENT_CHARS', (s: Settings) => s.segmentChars()],
    ] as const) {
      expect(() => read(new Settings({ [name]: 'lots' })), name).toThrow(new RegExp(`^${name} takes`));
    }
  });

  it('fails with llm_unconfigured (exit 3) when no LLM is configured', () => {
    for (const fn of [() => requireLlmConfig(new Settings({})), () => requireLlm(new Settings({}))]) {
      try {
        fn();
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(ZkError);
        expect((err as ZkError).code).toBe('llm_unconfigured');
        expect((err as ZkError).exitCode).toBe(3);
        expect((err as ZkError).message).toMatch(/--llm-base and --llm-model/);
      }
    }
    expect(requireLlm(settingsFrom(['--llm-base', 'http://h', '--llm-model', 'm'])).model).toBe('m');
  });
});
