import { noteGraph, type NoteGraph } from '../api/graph.js';
import { noteHref } from './html.js';

/** What the graph page draws (src/api/graph.ts `noteGraph`), each note with its page's address. */
export interface GraphAnswer extends Omit<NoteGraph, 'nodes'> {
  nodes: (NoteGraph['nodes'][number] & { href: string })[];
}

/** The graph around `note` (`hops` links out), or, without a note, the overview. */
export function graphAnswer(root: string, note: string | undefined, hops: number): GraphAnswer {
  const g = noteGraph(root, note, hops);
  return { ...g, nodes: g.nodes.map((n) => ({ ...n, href: noteHref(n.id) })) };
}
