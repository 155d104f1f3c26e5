import { keptFactsBuilt, loadNoteFacts, type NoteFacts } from '../corpus/graph/facts.js';
import { linksByName } from '../corpus/markdown/links.js';
import { keptMetasBuilt, loadNoteMetas, type NoteMeta } from '../corpus/note/note-meta.js';
import { ZkError } from '../errors.js';
import { CorpusMap } from '../tend/corpus-map.js';

// The link graph a reader browses (the viewer's graph page): the notes around one note, a few links out (either way), or an
// overview of the whole corpus that stays drawable at 50,000 notes: the most linked notes and the
// links between them. Links are every note link of a body (resolved as `read` resolves them) and
// every supersession.

/** The most nodes a graph holds: more would not be read on a screen anyway. */
const AROUND_MAX = 200;
const OVERVIEW_MAX = 1500;

export interface NoteGraph {
  nodes: { id: string; title: string; kind: string | null; superseded: boolean; center?: true }[];
  edges: { source: string; target: string }[];
  sampled?: { shown: number; of: number };
}

interface Neighbours {
  paths: readonly string[];
  adjacent: Map<string, Set<string>>;
}

/** Every note's neighbours (links out and in, supersessions), by path. */
function neighbours(root: string, facts: readonly NoteFacts[]): Neighbours {
  const map = new CorpusMap(root, facts);
  const adjacent = new Map<string, Set<string>>(facts.map((f) => [f.path, new Set<string>()]));
  const join = (a: string, b: string) => {
    if (a === b) return;
    adjacent.get(a)?.add(b);
    adjacent.get(b)?.add(a);
  };
  for (const f of facts) {
    for (const l of f.links) {
      if (!l.target) continue;
      const to = linksByName(l) ? map.resolveWiki(l.target).note : map.note(l.target);
      if (to) join(f.path, to.path);
    }
    for (const uuid of f.supersedes) for (const old of map.holders(uuid)) join(f.path, old.path);
  }
  return { paths: facts.map((f) => f.path), adjacent };
}

const metasByPath = (metas: readonly NoteMeta[]) => new Map(metas.map((m) => [m.path, m]));

/** The graph around `note` (`hops` links out), or, without a note, the overview. */
export function noteGraph(root: string, note: string | undefined, hops: number): NoteGraph {
  // A resident server keeps both until a note changes; without one, they are built for the call.
  const { paths, adjacent } = keptFactsBuilt(root, 'graph-neighbours', (facts) => neighbours(root, facts)) ?? neighbours(root, loadNoteFacts(root));
  const metas = keptMetasBuilt(root, 'by-path', metasByPath) ?? metasByPath(loadNoteMetas(root));
  let chosen: string[];
  let sampled: NoteGraph['sampled'];
  if (note) {
    if (!adjacent.has(note)) throw new ZkError('not_found', `no note ${note}`);
    chosen = [note];
    const seen = new Set(chosen);
    for (let depth = 0, frontier = [note]; depth < hops && frontier.length && seen.size < AROUND_MAX; depth++) {
      const next: string[] = [];
      for (const p of frontier)
        for (const q of adjacent.get(p) ?? []) {
          if (seen.size >= AROUND_MAX) break;
          if (!seen.has(q)) {
            seen.add(q);
            next.push(q);
          }
        }
      chosen.push(...next);
      frontier = next;
    }
  } else {
    const byDegree = [...paths].sort((a, b) => adjacent.get(b)!.size - adjacent.get(a)!.size || (a < b ? -1 : 1));
    chosen = byDegree.slice(0, OVERVIEW_MAX);
    if (chosen.length < paths.length) sampled = { shown: chosen.length, of: paths.length };
  }
  const inGraph = new Set(chosen);
  const nodes = chosen.map((p) => {
    const m = metas.get(p);
    return { id: p, title: m?.title ?? p, kind: m?.kind ?? null, superseded: Boolean(m?.superseded_by), ...(p === note ? { center: true as const } : {}) };
  });
  const edges: NoteGraph['edges'] = [];
  for (const a of chosen) for (const b of adjacent.get(a) ?? []) if (a < b && inGraph.has(b)) edges.push({ source: a, target: b });
  return { nodes, edges, ...(sampled ? { sampled } : {}) };
}
