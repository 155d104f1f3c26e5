import { describe, expect, it } from 'vitest';
import { processIo, withContext } from '../src/context.js';
import { Settings } from '../src/settings.js';
import { localEmbedder } from '../src/llm/local-embed.js';

// ONNX Runtime unable to load in the model's thread, as on a platform it ships no binary for
// (ZK_MEMORY_FAULT=onnx-unavailable): the built-in embedder says so in one line and runs the same
// model on its WebAssembly engine.

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('the built-in embedder without ONNX Runtime', { timeout: 240_000 }, () => {
  it("says so in one line and gives the model's vectors from the WebAssembly engine", async () => {
    let stderr = '';
    const ctx = {
      settings: new Settings({ ...process.env, ZK_MEMORY_FAULT: 'onnx-unavailable' }),
      io: { ...processIo, stderr: (t: string) => void (stderr += t) },
    };
    const [a, b, c] = await withContext(ctx, () =>
      localEmbedder().embed(['The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.']),
    );
    expect(stderr).toBe(
      'zk-memory: ONNX Runtime cannot load here (no ONNX Runtime binary for this platform); the built-in embedder runs in WebAssembly, slower\n',
    );
    expect(cos(a, b)).toBeCloseTo(0.666, 3);
    expect(cos(a, c)).toBeCloseTo(0.1046, 3);
    expect(cos(b, c)).toBeCloseTo(0.1411, 3);
  });
});
