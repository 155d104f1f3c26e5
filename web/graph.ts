import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import Sigma from 'sigma';
import { el, noteHref } from './dom.js';
import { fetchPage } from './live.js';

interface GraphNode {
  id: string;
  title?: string | null;
  kind?: string | null;
  superseded?: boolean;
  href?: string | null;
  center?: boolean;
}

interface GraphAnswer {
  nodes?: GraphNode[];
  edges?: { source: string; target: string }[];
  sampled?: { shown: number; of: number } | null;
}

interface NodeAttrs {
  x: number;
  y: number;
  size: number;
  color: string;
  label: string;
  href: string;
  kind: string;
  superseded: boolean;
  center: boolean;
}

// The legend and the drawing share one palette: the CSS custom properties
// --kind-* in viewer.css, with these as a fallback if the sheet is missing.
const KINDS = [
  { kind: 'concept', label: 'Concept', fallback: '#0072b2' },
  { kind: 'entity_update', label: 'Entity update', fallback: '#009e73' },
  { kind: 'decision', label: 'Decision', fallback: '#d55e00' },
  { kind: 'none', label: 'No kind', fallback: '#cc79a7' },
] as const;
const SUPERSEDED_FALLBACK = '#b8b8b8';

const SIZE = { normal: 6, center: 12, superseded: 3.5 };

export interface GraphView {
  reload(): Promise<void>;
}

export function initGraph(): GraphView | null {
  const container = document.getElementById('graph');
  if (!container) return null;
  const host = container;
  let renderer: Sigma<NodeAttrs> | null = null;

  async function load(): Promise<void> {
    const data = graphData(document) ?? (await fetchGraph());
    // For timing a drawing (npm run bench): the data in hand, before the layout.
    performance.mark('graph-data');
    const graph = buildGraph(data);
    layout(graph);
    renderer?.kill();
    renderer = null;
    host.replaceChildren();
    renderer = draw(host, graph);
    legend(host, data);
    document.body.dataset.graphNodes = String(graph.order);
  }

  // Loads run one after another so a live update never races the first draw.
  let current: Promise<void> = load().catch((err: unknown) => {
    message(host, `Could not load the graph: ${err instanceof Error ? err.message : String(err)}`);
    document.body.dataset.graphNodes = '0';
  });
  return {
    reload(): Promise<void> {
      current = current.catch(() => undefined).then(load);
      return current;
    },
  };
}

// A page's data of its drawing, taken out of it: the page comes with the data of its first
// drawing, used once; a live update reads the page again.
function graphData(doc: Document): GraphAnswer | undefined {
  const block = doc.getElementById('graph-data');
  if (!block) return undefined;
  block.remove();
  return JSON.parse(block.textContent ?? '') as GraphAnswer;
}

// A live update reads the page again: its data block for the drawing, and its list of the
// graph's notes in place of the one shown (kept open if it was).
async function fetchGraph(): Promise<GraphAnswer> {
  const doc = await fetchPage();
  const list = doc.getElementById('graph-notes');
  const shown = document.getElementById('graph-notes');
  if (list instanceof HTMLDetailsElement && shown instanceof HTMLDetailsElement) {
    list.open = shown.open;
    shown.replaceWith(document.adoptNode(list));
  }
  const data = graphData(doc);
  if (!data) throw new Error(`no graph in the page read again (${doc.title})`);
  return data;
}

function buildGraph(data: GraphAnswer): Graph<NodeAttrs> {
  const palette = colours();
  const graph = new Graph<NodeAttrs>({ type: 'directed', multi: false, allowSelfLoops: false });
  // Smaller dots for big graphs, or a few thousand notes become one blot.
  const scale = Math.max(0.5, Math.min(1, Math.sqrt(300 / Math.max(1, data.nodes?.length ?? 0))));
  for (const node of data.nodes ?? []) {
    if (!node || typeof node.id !== 'string' || graph.hasNode(node.id)) continue;
    const kind = KINDS.some((k) => k.kind === node.kind) ? (node.kind as string) : 'none';
    const superseded = !!node.superseded;
    const center = !!node.center;
    const random = seeded(node.id);
    graph.addNode(node.id, {
      x: random() * 100,
      y: random() * 100,
      size: scale * (center ? SIZE.center : superseded ? SIZE.superseded : SIZE.normal),
      color: superseded ? palette.superseded : (palette[kind] ?? palette.none),
      label: node.title || node.id,
      href: noteHref(node.href, node.id),
      kind,
      superseded,
      center,
    });
  }
  for (const edge of data.edges ?? []) {
    const { source, target } = edge ?? {};
    if (source === target || !graph.hasNode(source) || !graph.hasNode(target)) continue;
    if (!graph.hasDirectedEdge(source, target)) graph.addDirectedEdge(source, target);
  }
  return graph;
}

// ForceAtlas2 runs on the main thread, so its iterations are scaled down as the
// graph grows to keep the page responsive, and past a few hundred nodes it uses
// the Barnes-Hut approximation (n log n a step instead of n squared): a 400-node
// neighbourhood is laid out in about a tenth of a second.
function layout(graph: Graph<NodeAttrs>): void {
  if (graph.order < 2) return;
  const iterations = Math.max(20, Math.min(150, Math.round(30000 / graph.order)));
  const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: graph.order > 250 };
  forceAtlas2.assign(graph, { iterations, settings });
}

function draw(host: HTMLElement, graph: Graph<NodeAttrs>): Sigma<NodeAttrs> | null {
  if (!hasWebGL()) {
    message(host, 'This browser cannot draw the graph (WebGL is unavailable).');
    return null;
  }
  const hover = hoverFade(graph);
  let renderer: Sigma<NodeAttrs>;
  try {
    // The reducers are given here, not set afterwards: setting one makes sigma draw everything again.
    renderer = new Sigma(graph, host, {
      allowInvalidContainer: true,
      defaultEdgeType: 'arrow',
      defaultEdgeColor: cssVar('--graph-edge', '#c8c8c8'),
      labelColor: { color: cssVar('--graph-label', '#222222') },
      labelFont: 'system-ui, sans-serif',
      labelSize: 12,
      zIndex: true,
      nodeReducer: hover.nodeReducer,
      edgeReducer: hover.edgeReducer,
    });
  } catch (err) {
    host.replaceChildren();
    message(host, `This browser cannot draw the graph (${err instanceof Error ? err.message : 'WebGL failed'}).`);
    return null;
  }
  const r = renderer;
  r.on('enterNode', ({ node }) => {
    hover.enter(node);
    host.classList.add('over-node');
    r.refresh({ skipIndexation: true });
  });
  r.on('leaveNode', () => {
    hover.enter(null);
    host.classList.remove('over-node');
    r.refresh({ skipIndexation: true });
  });
  r.on('clickNode', ({ node }) => {
    location.assign(graph.getNodeAttribute(node, 'href'));
  });
  return r;
}

// Hovering a node keeps it and its neighbours in colour and fades the rest,
// which is what makes a dense neighbourhood readable.
function hoverFade(graph: Graph<NodeAttrs>) {
  let hovered: string | null = null;
  let near = new Set<string>();
  const faded = cssVar('--graph-faded', '#e6e6e6');
  return {
    enter(node: string | null): void {
      hovered = node;
      near = new Set(node ? graph.neighbors(node) : []);
    },
    nodeReducer(node: string, data: Partial<NodeAttrs>) {
      if (!hovered || node === hovered || near.has(node)) return data;
      return { ...data, color: faded, label: '', zIndex: 0 };
    },
    edgeReducer(edge: string, data: Record<string, unknown>) {
      if (!hovered || graph.hasExtremity(edge, hovered)) return data;
      return { ...data, hidden: true };
    },
  };
}

function legend(host: HTMLElement, data: GraphAnswer): void {
  let box = document.getElementById('graph-legend');
  if (!box) {
    box = el('div', 'legend');
    box.id = 'graph-legend';
    host.after(box);
  }
  const list = el('ul', 'legend-kinds');
  for (const { kind, label } of KINDS) {
    list.append(el('li', `swatch kind-${kind}`, label));
  }
  list.append(el('li', 'swatch kind-superseded', 'Superseded'));
  const parts: Node[] = [list];
  if (data.sampled && data.sampled.of > data.sampled.shown) {
    const { shown, of } = data.sampled;
    parts.push(el('p', 'sampled', `Showing ${shown.toLocaleString()} of ${of.toLocaleString()} notes.`));
  }
  box.replaceChildren(...parts);
}

function message(host: HTMLElement, text: string): void {
  host.replaceChildren(el('p', 'graph-message', text));
  host.classList.add('graph-unavailable');
}

function hasWebGL(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

function colours(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { kind, fallback } of KINDS) out[kind] = cssVar(`--kind-${kind}`, fallback);
  out.superseded = cssVar('--kind-superseded', SUPERSEDED_FALLBACK);
  return out;
}

function cssVar(name: string, fallback: string): string {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

// Positions seeded from the note's name, so the same graph lays out the same
// way on every visit and after live updates.
function seeded(id: string): () => number {
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  let state = h >>> 0;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
