import { encodeModel, FLOAT, INT64, type Initializer, type Node, type Attribute } from './onnx-proto.js';

/**
 * A BERT encoder (the architecture of sentence-transformers' MiniLM and its kin) as an ONNX model,
 * built from its safetensors weights and `config.json`: input ids and attention mask in, the last
 * hidden state out. The weights become fp32 initializers; PyTorch's Linear weights ([out, in]) are
 * transposed for MatMul. Operator set 17 (LayerNormalization); GELU is the exact one, with Erf.
 */

interface BertConfig {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  intermediate_size: number;
  layer_norm_eps: number;
  hidden_act: string;
}

interface TensorEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

export const INPUT_IDS = 'input_ids';
export const ATTENTION_MASK = 'attention_mask';
export const LAST_HIDDEN = 'last_hidden_state';

/** The ONNX model bytes of the BERT encoder in `weights` (a safetensors file's bytes) shaped by `configJson`. */
export function bertOnnxModel(weights: Uint8Array, configJson: string): Uint8Array {
  const config = JSON.parse(configJson) as BertConfig;
  if (config.hidden_act !== 'gelu') throw new Error(`its activation is ${config.hidden_act}, not gelu`);
  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headDim = hidden / heads;
  if (!Number.isInteger(headDim)) throw new Error('its hidden size is not a multiple of its heads');
  const tensor = safetensors(weights);

  const nodes: Node[] = [];
  const initializers: Initializer[] = [];
  let count = 0;
  /** A node of `op` on `inputs`; its one output's name. */
  const op = (type: string, inputs: string[], attributes?: Record<string, Attribute>): string => {
    const out = `${type}_${count++}`;
    nodes.push({ op: type, inputs, outputs: [out], attributes });
    return out;
  };
  const constant = (name: string, dims: number[], data: Float32Array | BigInt64Array): string => {
    initializers.push({ name, dims, type: data instanceof Float32Array ? FLOAT : INT64, data });
    return name;
  };
  const weight = (name: string, transpose = false): string => {
    const { dims, data } = tensor(name);
    if (!transpose) return constant(name, dims, data);
    const [rows, cols] = dims;
    const t = new Float32Array(data.length);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = data[r * cols + c];
    return constant(name, [cols, rows], t);
  };
  const linear = (x: string, prefix: string) => op('Add', [op('MatMul', [x, weight(`${prefix}.weight`, true)]), weight(`${prefix}.bias`)]);
  const layerNorm = (x: string, prefix: string) =>
    op('LayerNormalization', [x, weight(`${prefix}.weight`), weight(`${prefix}.bias`)], { axis: -1, epsilon: { float: config.layer_norm_eps } });

  const i64 = (name: string, values: number[]) => constant(name, [values.length], BigInt64Array.from(values.map(BigInt)));
  const f32 = (name: string, value: number) => constant(name, [], Float32Array.of(value));
  const headShape = i64('heads_shape', [0, 0, heads, headDim]);
  const hiddenShape = i64('hidden_shape', [0, 0, hidden]);
  const zero = i64('zero', [0]);
  const scale = f32('attention_scale', 1 / Math.sqrt(headDim));
  const one = f32('one', 1);
  const half = f32('half', 0.5);
  const invSqrt2 = f32('inv_sqrt2', Math.SQRT1_2);

  // Embeddings: word + position + token type 0 (every input is one segment), then LayerNorm.
  const positions = tensor('embeddings.position_embeddings.weight');
  const type0 = tensor('embeddings.token_type_embeddings.weight').data.subarray(0, hidden);
  const positionsPlusType = positions.data.map((x, i) => x + type0[i % hidden]);
  const seqLen = op('Shape', [INPUT_IDS], { start: 1, end: 2 });
  const position = op('Slice', [constant('position_type_embeddings', positions.dims, positionsPlusType), zero, seqLen, zero]);
  const words = op('Gather', [weight('embeddings.word_embeddings.weight'), INPUT_IDS]);
  let h = layerNorm(op('Add', [words, position]), 'embeddings.LayerNorm');

  // The mask as an additive bias on the attention scores: 0 for a token, -10000 for padding.
  const maskFloat = op('Cast', [ATTENTION_MASK], { to: FLOAT });
  const bias = op('Mul', [op('Sub', [one, maskFloat]), f32('mask_bias', -10000)]);
  const maskBias = op('Unsqueeze', [bias, i64('mask_axes', [1, 2])]);

  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`;
    const split = (x: string, perm: number[]) => op('Transpose', [op('Reshape', [x, headShape])], { perm });
    const q = split(linear(h, `${p}.attention.self.query`), [0, 2, 1, 3]);
    const k = split(linear(h, `${p}.attention.self.key`), [0, 2, 3, 1]);
    const v = split(linear(h, `${p}.attention.self.value`), [0, 2, 1, 3]);
    const scores = op('Add', [op('Mul', [op('MatMul', [q, k]), scale]), maskBias]);
    const context = op('MatMul', [op('Softmax', [scores], { axis: -1 }), v]);
    const merged = op('Reshape', [op('Transpose', [context], { perm: [0, 2, 1, 3] }), hiddenShape]);
    const attended = layerNorm(op('Add', [linear(merged, `${p}.attention.output.dense`), h]), `${p}.attention.output.LayerNorm`);
    const inner = linear(attended, `${p}.intermediate.dense`);
    const gelu = op('Mul', [op('Mul', [inner, op('Add', [op('Erf', [op('Mul', [inner, invSqrt2])]), one])]), half]);
    h = layerNorm(op('Add', [linear(gelu, `${p}.output.dense`), attended]), `${p}.output.LayerNorm`);
  }
  nodes.push({ op: 'Identity', inputs: [h], outputs: [LAST_HIDDEN] });

  return encodeModel(
    {
      name: 'bert',
      nodes,
      initializers,
      inputs: [
        { name: INPUT_IDS, type: INT64, dims: ['batch', 'sequence'] },
        { name: ATTENTION_MASK, type: INT64, dims: ['batch', 'sequence'] },
      ],
      outputs: [{ name: LAST_HIDDEN, type: FLOAT, dims: ['batch', 'sequence', hidden] }],
    },
    17,
  );
}

/** The float tensors of a safetensors file (F16 or F32), by name, with or without a `bert.` prefix; a bad file throws. */
function safetensors(file: Uint8Array): (name: string) => { dims: number[]; data: Float32Array } {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.length < 8) throw new Error('its weights file is too short');
  const headerLength = Number(view.getBigUint64(0, true));
  if (8 + headerLength > file.length) throw new Error('its weights file is cut short (header)');
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + headerLength))) as Record<string, TensorEntry>;
  const base = 8 + headerLength;
  const halfToFloat = halfTable();
  return (name) => {
    const entry = header[name] ?? header[`bert.${name}`];
    if (!entry?.data_offsets) throw new Error(`its weights have no ${name}`);
    const [from, to] = entry.data_offsets;
    const count = entry.shape.reduce((n, d) => n * d, 1);
    const size = entry.dtype === 'F16' ? 2 : entry.dtype === 'F32' ? 4 : 0;
    if (!size) throw new Error(`${name} is ${entry.dtype}, not F16 or F32`);
    if (to - from !== count * size || base + to > file.length) throw new Error(`its weights file is cut short (${name})`);
    // A view of the file where the tensor is aligned (the header is padded so it is), else a copy.
    const start = file.byteOffset + base + from;
    const aligned = start % size === 0;
    const buffer = aligned ? file.buffer : file.buffer.slice(start, start + count * size);
    const offset = aligned ? start : 0;
    if (size === 4) return { dims: entry.shape, data: new Float32Array(buffer, offset, count) };
    return { dims: entry.shape, data: toFloats(new Uint16Array(buffer, offset, count), halfToFloat) };
  };
}

function toFloats(halves: Uint16Array, halfToFloat: Float32Array): Float32Array {
  const data = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) data[i] = halfToFloat[halves[i]];
  return data;
}

/** Every IEEE 754 half-precision value as a float, indexed by its bits. */
function halfTable(): Float32Array {
  const table = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exponent = (h >> 10) & 0x1f;
    const mantissa = h & 0x3ff;
    table[h] =
      exponent === 0 ? sign * mantissa * 2 ** -24 : exponent === 31 ? (mantissa ? NaN : sign * Infinity) : sign * 2 ** (exponent - 15) * (1 + mantissa / 1024);
  }
  return table;
}
