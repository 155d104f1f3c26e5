/**
 * Just enough of ONNX's protobuf encoding to hand a graph built in code to ONNX Runtime: varints,
 * fixed32 floats and length-delimited fields, and the messages of onnx.proto a plain graph needs.
 * Field numbers are onnx.proto's (github.com/onnx/onnx/blob/main/onnx/onnx.proto): ModelProto
 * ir_version=1 graph=7 opset_import=8; OperatorSetIdProto domain=1 version=2; GraphProto node=1
 * name=2 initializer=5 input=11 output=12; NodeProto input=1 output=2 name=3 op_type=4 attribute=5;
 * AttributeProto name=1 f=2 i=3 ints=8 type=20; TensorProto dims=1 data_type=2 name=8 raw_data=9;
 * ValueInfoProto name=1 type=2; TypeProto tensor_type=1; TypeProto.Tensor elem_type=1 shape=2;
 * TensorShapeProto dim=1; Dimension dim_value=1 dim_param=2.
 */

/** TensorProto.DataType values. */
export const FLOAT = 1;
export const INT64 = 7;

/** AttributeProto.AttributeType values. */
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_INTS = 7;

/** One protobuf message being written: its fields in order, as byte chunks. */
class Message {
  private chunks: Uint8Array[] = [];

  private varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    const bytes: number[] = [];
    do {
      const low = Number(v & 0x7fn);
      v >>= 7n;
      bytes.push(v ? low | 0x80 : low);
    } while (v);
    this.chunks.push(Uint8Array.from(bytes));
  }

  int(field: number, value: number | bigint): this {
    this.varint((field << 3) | 0);
    this.varint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.varint((field << 3) | 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.chunks.push(b);
    return this;
  }

  /** A length-delimited field; a message's chunks are taken over, not copied (weights are large). */
  bytes(field: number, value: Uint8Array | Message): this {
    this.varint((field << 3) | 2);
    if (value instanceof Message) {
      this.varint(value.length());
      for (const c of value.chunks) this.chunks.push(c);
    } else {
      this.varint(value.length);
      this.chunks.push(value);
    }
    return this;
  }

  length(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0);
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.length());
    let at = 0;
    for (const c of this.chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}

/** A node attribute: a float, an int, or a list of ints. */
export type Attribute = number | bigint | number[] | { float: number };

export interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, Attribute>;
}

export interface Initializer {
  name: string;
  type: typeof FLOAT | typeof INT64;
  dims: number[];
  /** Raw data, little-endian as ONNX wants (the typed arrays of the little-endian machines ONNX Runtime's Node binding ships for). */
  data: ArrayBufferView;
}

/** A graph input or output: its element type and dimensions (a string names a dynamic one). */
export interface ValueInfo {
  name: string;
  type: typeof FLOAT | typeof INT64;
  dims: (number | string)[];
}

export interface Graph {
  name: string;
  nodes: Node[];
  initializers: Initializer[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

function attribute(name: string, value: Attribute): Message {
  const m = new Message().string(1, name);
  if (typeof value === 'object' && !Array.isArray(value)) return m.float(2, value.float).int(20, ATTR_FLOAT);
  if (Array.isArray(value)) {
    for (const v of value) m.int(8, v);
    return m.int(20, ATTR_INTS);
  }
  return m.int(3, value).int(20, ATTR_INT);
}

function valueInfo(v: ValueInfo): Message {
  const shape = new Message();
  for (const d of v.dims) shape.bytes(1, typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d));
  return new Message().string(1, v.name).bytes(2, new Message().bytes(1, new Message().int(1, v.type).bytes(2, shape)));
}

/** The bytes of an ONNX ModelProto holding `graph`, for the default operator set at `opset`. */
export function encodeModel(graph: Graph, opset: number): Uint8Array {
  const g = new Message();
  for (const n of graph.nodes) {
    const node = new Message();
    for (const i of n.inputs) node.string(1, i);
    for (const o of n.outputs) node.string(2, o);
    node.string(4, n.op);
    for (const [k, v] of Object.entries(n.attributes ?? {})) node.bytes(5, attribute(k, v));
    g.bytes(1, node);
  }
  g.string(2, graph.name);
  for (const t of graph.initializers) {
    const tensor = new Message();
    for (const d of t.dims) tensor.int(1, d);
    tensor
      .int(2, t.type)
      .string(8, t.name)
      .bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    g.bytes(5, tensor);
  }
  for (const v of graph.inputs) g.bytes(11, valueInfo(v));
  for (const v of graph.outputs) g.bytes(12, valueInfo(v));
  // IR version 8 goes with opset 17.
  return new Message().int(1, 8).bytes(7, g).bytes(8, new Message().string(1, '').int(2, opset)).finish();
}
