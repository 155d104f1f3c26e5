import { ZkError } from '../errors.js';
import { requireMoment, timeAsked } from '../corpus/note/moments.js';
import { keptMetasBuilt, loadNoteMetas, type NoteMeta } from '../corpus/note/note-meta.js';
import { readNoteFile, type Note } from '../corpus/note/notes.js';
import { corpusStatus, noteFigures, type NoteFigures } from '../corpus/ops/status.js';
import { noteHeldAt, notesHeldAt, supersessionAt } from '../corpus/graph/held-at.js';
import { supersession, type ChainNote } from '../corpus/graph/supersession.js';
import { linkGraphs } from '../corpus/graph/link-graph.js';
import { inboxFiles } from '../pipelines/inbox.js';
import { estimateTokens, takeOffer } from './context-bundle.js';
import { readInboxFile } from './corpus.js';
import { search } from './search.js';

// The memory an agent should see, cut to a token budget (docs/search.md#context-bundles): for a
// query, its best hits and the notes around them; without one, what a session starts with.

export interface ContextRequest {
  /** What the agent is about to work on; none for the start of a session. */
  query?: string;
  /** The most tokens the bundle may take (default 1,000). */
  budget?: number;
  /** How many links away from a hit notes are brought in: 0, 1 (default) or 2. */
  hops?: number;
  /** The memory as it stood at the end of this day (or at this moment), as `search --as-of`. */
  asOf?: string;
  /** The search backend for the query's hits (default: the configured one). */
  backend?: string;
}

export interface ContextNote {
  path: string;
  title: string;
  uuid: string;
  /** Why the note is in the bundle. */
  why: 'hit' | 'link' | 'backlink' | 'current' | 'pinned' | 'recent';
  /** The tokens its entry takes in `text`. */
  tokens: number;
  /** Whether only its start is in the bundle. */
  cut: boolean;
}

export interface ContextResult {
  ok: true;
  budget: number;
  /** The tokens `text` takes (never more than `budget`). */
  tokens: number;
  notes: ContextNote[];
  text: string;
  /** How many inputs wait in the inbox. */
  inbox: number;
}

export const DEFAULT_BUDGET = 1000;
const MAX_BUDGET = 200_000;
const DEFAULT_HOPS = 1;
/** How many of the notes of one hop have their links followed to the next. */
const EXPANDED = 5;
/** What a note one hop further from the query is worth, against the note it was reached from. */
const HOP_DECAY = 0.5;
/** No note's entry takes more than this share of the budget (when other notes are offered), so one long note leaves room. */
const NOTE_SHARE = 0.5;
/** At the start of a session: how many pinned notes, current beliefs, recent notes and inbox inputs are offered at most. */
const SESSION = { pinned: 20, current: 5, recent: 10, inbox: 3 };

/** The memory an agent should see for `query` (or at the start of a session), within `budget` tokens. */
export async function context(root: string, o: ContextRequest = {}): Promise<ContextResult> {
  const budget = checkBudget(o.budget);
  const hops = checkHops(o.hops);
  const asOf = o.asOf === undefined ? undefined : requireMoment(o.asOf, 'as-of date');
  const notes = noteSource(root, asOf);
  const query = queryWords(o.query);
  const inbox = inboxFiles(root);
  const gathered = query ? await queryOffers(root, query, { budget, hops, asOf, backend: o.backend }, notes) : sessionOffers(root, notes, asOf, inbox);
  return pack(gathered, budget, inbox.length);
}

/** How much of a query is searched: a prompt may be a pasted file, and every word of a query costs a search. */
const MAX_QUERY_CHARS = 2000;

/** The query, trimmed, and cut at a word's end when it is longer than MAX_QUERY_CHARS; undefined when empty. */
function queryWords(query: string | undefined): string | undefined {
  const q = query?.trim();
  if (!q) return undefined;
  if (q.length <= MAX_QUERY_CHARS) return q;
  const cut = q.slice(0, MAX_QUERY_CHARS);
  const lastSpace = cut.search(/\s\S*$/);
  return (lastSpace > 0 ? cut.slice(0, lastSpace) : cut).trim();
}

function checkBudget(budget: number | undefined): number {
  if (budget === undefined) return DEFAULT_BUDGET;
  if (!Number.isInteger(budget) || budget < 1 || budget > MAX_BUDGET) {
    throw new ZkError('usage', `invalid budget: ${JSON.stringify(budget)} (a whole number of tokens from 1 to ${MAX_BUDGET})`);
  }
  return budget;
}

function checkHops(hops: number | undefined): number {
  if (hops === undefined) return DEFAULT_HOPS;
  if (hops !== 0 && hops !== 1 && hops !== 2) throw new ZkError('usage', `invalid hops: ${JSON.stringify(hops)} (0, 1 or 2)`);
  return hops;
}

/** A note in line for the bundle: its value decides the order, then the order it was found in. */
interface Candidate {
  note: Note;
  why: ContextNote['why'];
  value: number;
  seq: number;
}

interface Gathered {
  /** The bundle's first lines. */
  heading: string;
  candidates: Candidate[];
}

/** The notes as they stand, or as they stood at `asOf`. */
interface NoteSource {
  /** The note at a path, or undefined when it is not there (or was not yet, or no longer, then). */
  load(path: string): Note | undefined;
  /** The current belief that replaced a superseded note (then), if one is live. */
  current(note: Note): Note | undefined;
}

function noteSource(root: string, asOf: string | undefined): NoteSource {
  const at = asOf === undefined ? undefined : timeAsked(asOf, 'as-of date');
  const load = (path: string): Note | undefined => {
    if (at === undefined) return readNoteFile(root, path);
    try {
      // An archived note is found by its name among the archive's (its path says `.archive/`).
      return noteHeldAt(root, path.replace(/^\.archive\//, ''), at, asOf!).note;
    } catch (err) {
      if (err instanceof ZkError && err.code === 'not_found') return undefined;
      throw err;
    }
  };
  const current = (note: Note): Note | undefined => {
    if (!note.superseded_by) return undefined;
    const chain: ChainNote[] = at === undefined ? supersession(root, note).chain : supersessionAt(root, note, at).chain;
    const live = chain.filter((c) => !c.archived && !c.superseded_by).pop();
    return live && load(live.path);
  };
  return { load, current };
}

/** The candidates of a bundle, best first, with no note twice; a note's current belief right after it. */
class Candidates {
  private byPath = new Map<string, Candidate>();
  private seq = 0;

  constructor(private notes: NoteSource) {}

  add(note: Note, why: Candidate['why'], value: number): Candidate | undefined {
    const had = this.byPath.get(note.path);
    if (had) {
      had.value = Math.max(had.value, value);
      return undefined;
    }
    const c: Candidate = { note, why, value, seq: this.seq++ };
    this.byPath.set(note.path, c);
    const now = this.notes.current(note);
    if (now) this.add(now, 'current', value);
    return c;
  }

  addPath(path: string, why: Candidate['why'], value: number): Candidate | undefined {
    if (this.byPath.has(path)) return this.add(this.byPath.get(path)!.note, why, value);
    const note = this.notes.load(path);
    return note && this.add(note, why, value);
  }

  sorted(): Candidate[] {
    return [...this.byPath.values()].sort((a, b) => b.value - a.value || a.seq - b.seq);
  }
}

/** How many hits a bundle of `budget` tokens is offered: enough short notes to fill it. */
function hitLimit(budget: number): number {
  return Math.min(50, Math.max(8, Math.ceil(budget / 50)));
}

async function queryOffers(
  root: string,
  query: string,
  o: { budget: number; hops: number; asOf?: string; backend?: string },
  notes: NoteSource,
): Promise<Gathered> {
  const r = await search(root, query, { backend: o.backend, asOf: o.asOf, limit: hitLimit(o.budget) });
  const found = new Candidates(notes);
  const best = r.hits[0]?.score || 1;
  let frontier: Candidate[] = [];
  for (const hit of r.hits) {
    const c = found.addPath(hit.path, 'hit', hit.score > 0 ? hit.score / best : 0);
    if (c) frontier.push(c);
  }
  for (let hop = 1; hop <= o.hops; hop++) {
    const next: Candidate[] = [];
    const expanded = frontier.slice(0, EXPANDED);
    // One search for the links of them all: without a server, each is a grep of every note.
    const graphs = linkGraphs(
      root,
      expanded.map((c) => c.note),
    );
    for (const [i, from] of expanded.entries()) {
      const { links, backlinks } = graphs[i];
      const value = from.value * HOP_DECAY;
      for (const l of links) if (l.path) pushNew(next, found.addPath(l.path, 'link', value));
      for (const b of backlinks) pushNew(next, found.addPath(b.path, 'backlink', value));
    }
    frontier = next;
  }
  const heading = `# Memory for: ${oneLine(query)}${o.asOf !== undefined ? ` (as of ${o.asOf})` : ''}\n`;
  return { heading, candidates: found.sorted() };
}

function pushNew(list: Candidate[], c: Candidate | undefined): void {
  if (c) list.push(c);
}

/** What the start of a session shows of the notes: their figures, and the notes it offers by kind of interest. */
interface SessionNotes {
  figures: NoteFigures;
  pinned: NoteMeta[];
  current: NoteMeta[];
  recent: NoteMeta[];
}

/** Newest first: by when the file last changed, then by its date, then by name (as of a day, by date alone). */
const byRecency = (asOf: boolean) => (a: NoteMeta, b: NoteMeta) =>
  (asOf ? 0 : b.mtimeMs - a.mtimeMs) || (a.date < b.date ? 1 : a.date > b.date ? -1 : 0) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function sessionNotes(metas: readonly NoteMeta[], asOf: boolean): SessionNotes {
  const live = metas.filter((m) => !m.superseded_by);
  const newest = (list: NoteMeta[], n: number) => list.sort(byRecency(asOf)).slice(0, n);
  return {
    figures: noteFigures(metas),
    pinned: newest(
      live.filter((m) => m.pinned),
      SESSION.pinned,
    ),
    current: newest(
      live.filter((m) => m.supersedes.length > 0),
      SESSION.current,
    ),
    recent: newest(live.slice(), SESSION.recent),
  };
}

function sessionOffers(root: string, notes: NoteSource, asOf: string | undefined, inbox: string[]): Gathered {
  const pick = (metas: readonly NoteMeta[]) => sessionNotes(metas, asOf !== undefined);
  // A resident process keeps what it picked until a note changes: no call sorts every note again.
  const s =
    asOf === undefined
      ? (keptMetasBuilt(root, 'context-session', pick) ?? pick(loadNoteMetas(root)))
      : pick(notesHeldAt(root, loadNoteMetas(root), timeAsked(asOf, 'as-of date')));
  const found = new Candidates(notes);
  const offer = (metas: NoteMeta[], why: Candidate['why'], value: number) => {
    for (const m of metas) found.addPath(m.path, why, value);
  };
  offer(s.pinned, 'pinned', 3);
  offer(s.current, 'current', 2);
  offer(s.recent, 'recent', 1);
  return { heading: sessionHeading(root, s.figures, asOf, inbox), candidates: found.sorted() };
}

/** What the corpus is, in numbers, and what waits in its inbox (the oldest inputs' sources and first lines). */
function sessionHeading(root: string, f: NoteFigures, asOf: string | undefined, inbox: string[]): string {
  const st = corpusStatus(root, f);
  const kinds = Object.entries(f.byKind)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k === 'none' ? 'without a kind' : k}`)
    .join(', ');
  const lines = [
    `# Memory${asOf !== undefined ? ` as of ${asOf}` : ''}: ${f.notes} notes${kinds ? ` (${kinds})` : ''}, ${f.superseded} superseded, ${st.archived} archived`,
  ];
  if (inbox.length) {
    lines.push(`Inbox: ${inbox.length} input${inbox.length === 1 ? '' : 's'} waiting to be kept as notes (inbox lists them), oldest first:`);
    for (const name of inbox.slice(0, SESSION.inbox)) {
      const item = readInboxFile(root, name);
      if (!item) continue;
      const first = item.items[0]?.text.split('\n').find((l) => l.trim()) ?? item.reason;
      lines.push(`- ${item.file}${item.source ? ` from ${oneLine(item.source)}` : ''}: ${oneLine(first).slice(0, 120)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The bundle: the heading, then each candidate whole or cut, best first, as long as the budget lasts. */
function pack(g: Gathered, budget: number, inbox: number): ContextResult {
  let text = '';
  let used = 0;
  const included: ContextNote[] = [];
  const headingTokens = estimateTokens(g.heading);
  if (headingTokens <= budget) {
    text = g.heading;
    used = headingTokens;
  }
  const cap = Math.max(Math.floor(budget * NOTE_SHARE), 1);
  for (const [i, c] of g.candidates.entries()) {
    const room = budget - used;
    if (room <= 0) break;
    const n = c.note;
    const last = i === g.candidates.length - 1;
    const offer = { head: entryHead(c), body: noteText(n) };
    // A note that cannot be cut to its share (no boundary early enough) takes what room is left
    // rather than let a note of less value in ahead of it.
    const taken = takeOffer(offer, room, last ? room : cap) ?? takeOffer(offer, room, room);
    if (!taken) continue;
    text += taken.text;
    used += taken.tokens;
    included.push({ path: n.path, title: n.title, uuid: n.uuid, why: c.why, tokens: taken.tokens, cut: taken.cut });
  }
  return { ok: true, budget, tokens: estimateTokens(text), notes: included, text, inbox };
}

/** An entry's first line: the note's title, file name and why it is there (and that it was replaced, when it was). */
function entryHead(c: Candidate): string {
  const n = c.note;
  return `## ${oneLine(n.title)} (${n.path}, ${c.why}${n.superseded_by ? `; superseded` : ''})`;
}

/** A note's text for a bundle: its body without the `# Title` line the entry's head repeats. */
function noteText(n: Note): string {
  return n.parsed.body.replace(/^\s*#[ \t]+[^\n]*\n?/, '').trim();
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);
