import { describe, expect, it, vi } from 'vitest';
import { processIo, withContext } from '../src/context.js';
import { Settings } from '../src/settings.js';
import { localEmbedder } from '../src/llm/local-embed.js';

// ONNX Runtime unable to load, as on a platform it ships no binary for: the built-in embedder says
// so in one line and runs the same model on its WebAssembly engine.
vi.mock('onnxruntime-node', () => {
  throw new Error('no ONNX Runtime binary for this platform');
});

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('the built-in embedder without ONNX Runtime', { timeout: 240_000 }, () => {
  it("says so in one line and gives the model's vectors from the WebAssembly engine", async () => {
    let stderr = '';
    const ctx = { settings: new Settings(process.env), io: { ...processIo, stderr: (t: string) => void (stderr += t) } };
    const [a, b, c] = await withContext(ctx, () => localEmbedder().embed(['The weather is lovely today.', "It's so sunny outside!", 'He drove to the stadium.']));
    // (vitest words the loading error its own way; the line is what matters.)
    expect(stderr).toMatch(/^zk-memory: ONNX Runtime cannot load here \(.+\); the built-in embedder runs in WebAssembly, slower\n$/);
    expect(cos(a, b)).toBeCloseTo(0.666, 3);
    expect(cos(a, c)).toBeCloseTo(0.1046, 3);
    expect(cos(b, c)).toBeCloseTo(0.1411, 3);
  });
});
