import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ZkError } from '../src/errors.js';
import { llmConfig, llmConfigured, requireLlmConfig, type LlmFlags } from '../src/llm/config.js';
import { addLlmOptions } from '../src/llm/options.js';
import { requireLlm } from '../src/llm/require.js';

function parseFlags(args: string[]): LlmFlags {
  const cmd = addLlmOptions(new Command('x').exitOverride());
  cmd.parse(args, { from: 'user' });
  return cmd.opts<LlmFlags>();
}

describe('LLM configuration', () => {
  it('is configured only when base and model are both set', () => {
    expect(llmConfig({}, {})).toBeUndefined();
    expect(llmConfigured({ llmBase: 'http://h' }, {})).toBe(false);
    expect(llmConfigured({}, { ZK_MEMORY_LLM_BASE: 'http://h', ZK_MEMORY_LLM_MODEL: 'm' })).toBe(true);
  });

  it('takes flags over the environment and applies defaults', () => {
    const flags = parseFlags(['--llm-base', 'http://flag', '--llm-timeout', '2.5', '--llm-max-tokens', '100']);
    const c = llmConfig(flags, { ZK_MEMORY_LLM_BASE: 'http://env', ZK_MEMORY_LLM_MODEL: 'm', ZK_MEMORY_LLM_KEY: 'k' });
    expect(c).toMatchObject({ base: 'http://flag', model: 'm', key: 'k', timeoutMs: 2500, maxTokens: 100, retries: 3 });
    const d = llmConfig({}, { ZK_MEMORY_LLM_BASE: 'b', ZK_MEMORY_LLM_MODEL: 'm', ZK_MEMORY_LLM_MAX_TOKENS: '' });
    expect(d?.maxTokens).toBe(8192);
    expect(d?.key).toBeUndefined();
  });

  it('refuses malformed numbers as usage errors', () => {
    const env = { ZK_MEMORY_LLM_BASE: 'b', ZK_MEMORY_LLM_MODEL: 'm' };
    expect(() => llmConfig({ llmTimeout: 'soon' }, env)).toThrow(/--llm-timeout/);
    expect(() => llmConfig({ llmMaxTokens: '1.5' }, env)).toThrow(/whole number/);
    expect(llmConfig({ llmRetries: '0' }, env)?.retries).toBe(0);
  });

  it('fails with llm_unconfigured (exit 3) when no LLM is configured', () => {
    for (const fn of [() => requireLlmConfig({}, {}), () => requireLlm({}, {})]) {
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
    expect(requireLlm({ llmBase: 'http://h', llmModel: 'm' }, {}).model).toBe('m');
  });
});
