import os from 'node:os';
import { localEmbedder, type Runtime } from '../src/llm/local-embed.js';
import { arg } from './harness.js';
import { processIo, withContext } from '../src/context.js';
import { Settings } from '../src/settings.js';

// The built-in embedder's speed and memory (docs/performance.md#the-built-in-embedder):
// `npm run bench:embed [-- --runtime onnx|wasm --notes 500 --queries 50]`. The machine's load
// average is printed with each figure: on a shared machine every wall-clock figure is an upper bound.

const RUNTIME = arg('--runtime', 'onnx') as Runtime;
const NOTES = Number(arg('--notes', '500'));
const QUERIES = Number(arg('--queries', '50'));

const WORDS = (
  'the a of to and in for on with at by from garden tomato bicycle brake train platform guitar chord cat vet kitchen paint ' +
  'chess opening password manager running race budget review meeting finance project deadline release rollback server ' +
  'database backup holiday flight hotel doctor appointment recipe flour sourdough starter weekend market invoice client'
).split(' ');

/** Deterministic note-like text of about `chars` characters (sentences of 8–16 words). */
function note(seed: number, chars: number): string {
  let x = seed * 2654435761 + 1;
  const next = (n: number) => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  let text = '';
  while (text.length < chars) {
    const words = Array.from({ length: 8 + next(9) }, () => WORDS[next(WORDS.length)]);
    text += `${words[0][0].toUpperCase()}${words.join(' ').slice(1)}. `;
  }
  return text.trim();
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const rssMb = () => process.memoryUsage().rss / 2 ** 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const embedder = localEmbedder(undefined, RUNTIME);
const rssBefore = rssMb();
let t = performance.now();
// The model loads in a call, as library code runs (its settings say which runtime may load).
await withContext({ settings: new Settings(process.env), io: processIo }, () => embedder.embed(['load']));
console.log(`${RUNTIME}: model load and first text ${(performance.now() - t).toFixed(0)} ms; RSS +${(rssMb() - rssBefore).toFixed(0)} MB (load ${load()})`);

const notes = Array.from({ length: NOTES }, (_, i) => note(i, 400));
const cpu = process.cpuUsage();
t = performance.now();
for (let i = 0; i < notes.length; i += 16) await embedder.embed(notes.slice(i, i + 16));
const wall = (performance.now() - t) / 1000;
const used = process.cpuUsage(cpu);
const cpuSeconds = (used.user + used.system) / 1e6;
console.log(
  `${NOTES} notes of ${Math.round(notes.reduce((n, s) => n + s.length, 0) / NOTES)} characters: ${(NOTES / wall).toFixed(1)} notes/s wall, ` +
    `${(NOTES / cpuSeconds).toFixed(1)} per CPU-second (load ${load()})`,
);

const times: number[] = [];
for (let i = 0; i < QUERIES; i++) {
  t = performance.now();
  await embedder.embed([`when is the ${WORDS[10 + (i % 40)]} ${WORDS[11 + ((i * 7) % 40)]} meeting`]);
  times.push(performance.now() - t);
}
console.log(
  `query embedded: median ${median(times).toFixed(1)} ms, fastest ${Math.min(...times).toFixed(1)} ms of ${QUERIES} (load ${load()}); RSS +${(rssMb() - rssBefore).toFixed(0)} MB`,
);
