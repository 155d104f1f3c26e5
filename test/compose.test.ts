import { describe, expect, it } from 'vitest';
import { callContext, configuredModels } from '../src/compose.js';
import { withContext, type Io } from '../src/context.js';
import { retainDrain } from '../src/api/judged.js';
import { write } from '../src/api/notes.js';
import type { CommitPaths } from '../src/ports.js';
import { Settings } from '../src/settings.js';
import { stubLlm } from './helpers/llm-stub.js';
import { tempCorpus } from './helpers/corpus.js';

// The composition root hands every port in (src/compose.ts): the library uses the ports of its
// call's context, and looks nothing up of its own.

const quiet: Io = { stdout: () => undefined, stderr: () => undefined, stdin: () => undefined, cwd: () => process.cwd() };

/** Settings that configure an LLM (at an address nothing answers) and commits. */
const configured = new Settings({ ZK_MEMORY_LLM_BASE: 'http://127.0.0.1:9/v1', ZK_MEMORY_LLM_MODEL: 'm', ZK_MEMORY_GIT_COMMIT: '1' });

describe('a call context', () => {
  it('is wired with every adapter by callContext', () => {
    const ctx = callContext({ settings: new Settings({}), io: quiet });
    expect(ctx).toMatchObject({
      grep: { filesMatching: expect.any(Function) },
      noteCache: expect.any(Function),
      written: expect.any(Function),
      commit: expect.any(Function),
      models: configuredModels,
    });
    // The built-in embedder is worth keeping between calls; none is chosen with ZK_MEMORY_EMBED=off.
    expect(withContext(callContext({ settings: new Settings({ ZK_MEMORY_EMBED: 'local' }), io: quiet }), () => configuredModels.embedderKey())).toBe('local:');
    expect(withContext(callContext({ settings: new Settings({ ZK_MEMORY_EMBED: 'off' }), io: quiet }), () => configuredModels.embedderKey())).toBeUndefined();
  });

  it('gives a judged write the model of its models port, not one looked up from the settings', async () => {
    const root = tempCorpus();
    const none = { ...configuredModels, llm: () => undefined };
    // The settings name an LLM, but the port has none: the call has none.
    await expect(withContext({ ...callContext({ settings: configured, io: quiet }), models: none }, () => retainDrain(root))).rejects.toMatchObject({
      code: 'llm_unconfigured',
    });
    const stub = stubLlm({});
    const given = { ...configuredModels, llm: () => stub };
    const r = await withContext({ ...callContext({ settings: new Settings({}), io: quiet }), models: given }, () => retainDrain(root));
    expect(r).toMatchObject({ drained: 0, kept: 0 });
  });

  it('commits through its commit port, and without one says the write was not committed', async () => {
    const root = tempCorpus();
    const asked: { paths: string[]; message: string }[] = [];
    const commit: CommitPaths = async (_dir, paths, message) => (asked.push({ paths, message }), { sha: 'f'.repeat(40), message });
    const made = await withContext({ ...callContext({ settings: configured, io: quiet }), commit }, () =>
      write(root, { slug: 'judy', title: 'Judy', body: 'Lives in Paris.' }),
    );
    expect(asked).toHaveLength(1);
    expect(asked[0].paths).toContain(made.note.path);
    expect(made.commit).toEqual({ sha: 'f'.repeat(40), message: asked[0].message });
    const ctx = callContext({ settings: configured, io: quiet });
    delete ctx.commit;
    const unwired = await withContext(ctx, () => write(root, { slug: 'sam', title: 'Sam', body: 'Lives in Lyon.' }));
    expect(unwired.commit).toEqual({ skipped: 'no git adapter in this call' });
  });
});
