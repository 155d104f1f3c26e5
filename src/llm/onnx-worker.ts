import { parentPort, workerData } from 'node:worker_threads';
import { ATTENTION_MASK, INPUT_IDS, LAST_HIDDEN } from './bert-onnx.js';

// The built-in embedder's model on ONNX Runtime, in a thread of its own (src/llm/local-embed.ts
// starts it): ONNX Runtime's Node binding runs a model on the thread that calls it, so run on the
// event loop's thread a batch held a server's other calls for hundreds of milliseconds. Messages:
// in, `{ id, input, mask, dims }` (int64 ids and mask, batch × length); out, `{ id, hidden }` (the
// last hidden state) or `{ id, error }`; first of all `{ ready: true, graph }` or `{ error }` (with `unavailable` when ONNX Runtime does not load). The
// graph (the model in ONNX form, built by the caller) comes in `workerData` and goes back with
// `ready`: its bytes are garbage once the session is made, and the caller's heap, which allocates
// all the time, frees them soon, where this thread's, idle between batches, would keep them.

interface Job {
  id: number;
  input: BigInt64Array;
  mask: BigInt64Array;
  dims: [number, number];
}

async function start(): Promise<void> {
  const port = parentPort!;
  const { graph, fault } = workerData as { graph: Uint8Array; fault?: string };
  let session: import('onnxruntime-node').InferenceSession;
  let ort: typeof import('onnxruntime-node');
  try {
    if (fault === 'onnx-unavailable') throw new Error('no ONNX Runtime binary for this platform');
    ort = await import('onnxruntime-node');
  } catch (err) {
    // The runtime does not load here: the caller falls back to WebAssembly.
    port.postMessage({ error: String((err as Error)?.message ?? err), unavailable: true });
    return;
  }
  try {
    // One thread: a server's searches keep the other cores. Errors only: the runtime's warnings
    // are advice to whoever tunes the graph, not to the user.
    session = await ort.InferenceSession.create(graph, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3,
    });
  } catch (err) {
    port.postMessage({ error: String((err as Error)?.message ?? err) });
    return;
  }
  port.on('message', async ({ id, input, mask, dims }: Job) => {
    try {
      const out = await session.run({ [INPUT_IDS]: new ort.Tensor('int64', input, dims), [ATTENTION_MASK]: new ort.Tensor('int64', mask, dims) });
      const hidden = new Float32Array(out[LAST_HIDDEN].data as Float32Array);
      port.postMessage({ id, hidden }, [hidden.buffer]);
    } catch (err) {
      port.postMessage({ id, error: String((err as Error)?.message ?? err) });
    }
  });
  port.postMessage({ ready: true, graph }, [graph.buffer as ArrayBuffer]);
}

void start();
