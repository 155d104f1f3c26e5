import type { FileStamp } from '../files/file-stamp.js';

/**
 * How an index built from every kept answer follows one note's change without being built again:
 * `was` is the note's answer before (none: the note is new), `now` after (none: it is gone).
 */
export type BuiltUpdate<T, R> = (built: R, was: T | undefined, now: T | undefined) => void;

/** A copy of `list` spliced (the list itself is left as it was: a caller may hold it). */
function spliced<T>(list: readonly T[], at: number, remove: number, ...add: T[]): T[] {
  const copy = list.slice();
  copy.splice(at, remove, ...add);
  return copy;
}

/** A stamp's four numbers, in a slot of `KeptAnswers.stamps`. */
const STAMP = 4;

/**
 * What a long-running process keeps of one kind of answer between calls: every note's answer and
 * the stamp it was derived at. A note has a slot; its stamp is four numbers in one typed array,
 * not an object of its own: an object and four boxed numbers weighed about 180 bytes a note, kept
 * once per kind of answer (some 350 MB at 1,000,000 notes).
 */
export class KeptAnswers<T> {
  private readonly slots = new Map<string, number>();
  private readonly answers: (T | undefined)[] = [];
  private stamps = new Float64Array(STAMP * 1024);
  private readonly freeSlots: number[] = [];
  /** Notes whose frontmatter is invalid: never vouched for, so read (and warned of) on every call. */
  readonly unkept = new Set<string>();
  /**
   * The names, and the answers, in file-name order, once asked for. A note added or removed makes
   * new lists with it placed or taken out (a caller may hold the old ones); an answer that changed
   * is put in place when the answers are next asked for, all in one copy (`changed`). At 1,000,000
   * notes, sorting every name again and looking each one up took 0.9 s of the call after a write.
   */
  private order?: readonly string[];
  private ordered?: readonly T[];
  /** Notes whose answer changed since `ordered` was made. */
  private readonly changed = new Set<string>();
  /** What was built from the answers (see `keptBuilt`): dropped once one changed, unless it follows changes. */
  readonly built = new Map<string, { value: unknown; update?: BuiltUpdate<T, unknown> }>();

  /** Keep `all`, given in file-name order. */
  constructor(all: readonly { name: string; st: FileStamp; value: T; keep: boolean }[]) {
    for (const d of all) this.set(d.name, d.st, d.value, d.keep);
    this.order = all.map((d) => d.name);
  }

  answer(name: string): T | undefined {
    const slot = this.slots.get(name);
    return slot === undefined ? undefined : this.answers[slot];
  }

  /** Whether the note's answer is kept, and vouched for by `st` (the stamp it has now). */
  holds(name: string, st: FileStamp): boolean {
    const slot = this.slots.get(name);
    if (slot === undefined || this.unkept.has(name)) return false;
    const s = this.stamps;
    const at = slot * STAMP;
    return s[at] === st.mtimeMs && s[at + 1] === st.ctimeMs && s[at + 2] === st.ino && s[at + 3] === st.size;
  }

  /** Keep a note's answer; returns the one it replaces. */
  set(name: string, st: FileStamp, value: T, keep: boolean): T | undefined {
    let slot = this.slots.get(name);
    const was = slot === undefined ? undefined : this.answers[slot];
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.answers.length;
      this.slots.set(name, slot);
      this.placed(name, value);
    } else if (this.ordered) this.changed.add(name);
    this.answers[slot] = value;
    this.stampAt(slot, st);
    if (keep) this.unkept.delete(name);
    else this.unkept.add(name);
    return was;
  }

  /** Forget a note (gone); returns its answer. */
  delete(name: string): T | undefined {
    const slot = this.slots.get(name);
    if (slot === undefined) return undefined;
    const was = this.answers[slot];
    this.answers[slot] = undefined;
    this.slots.delete(name);
    this.freeSlots.push(slot);
    this.unkept.delete(name);
    this.changed.delete(name);
    if (this.order) {
      const at = this.orderOf(name);
      this.order = spliced(this.order, at, 1);
      this.ordered = this.ordered && spliced(this.ordered, at, 1);
    }
    return was;
  }

  /** Every answer, in file-name order (the same list until one changes: not for a caller to change). */
  values(): readonly T[] {
    this.order ??= [...this.slots.keys()].sort();
    if (this.ordered && this.changed.size) {
      const next = this.ordered.slice();
      for (const name of this.changed) next[this.orderOf(name)] = this.answer(name)!;
      this.ordered = next;
    }
    this.changed.clear();
    return (this.ordered ??= this.order.map((name) => this.answer(name)!));
  }

  /** A new name's place in the lists kept in order. */
  private placed(name: string, value: T): void {
    if (!this.order) return;
    const at = this.orderOf(name);
    this.order = spliced(this.order, at, 0, name);
    this.ordered = this.ordered && spliced(this.ordered, at, 0, value);
  }

  /** Where `name` is, or goes, in `order` (file-name order: as `sort()` compares). */
  private orderOf(name: string): number {
    const order = this.order!;
    let lo = 0;
    for (let hi = order.length; lo < hi; ) {
      const mid = (lo + hi) >>> 1;
      if (order[mid] < name) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private stampAt(slot: number, st: FileStamp): void {
    const at = slot * STAMP;
    if (at + STAMP > this.stamps.length) {
      const grown = new Float64Array(Math.max(this.stamps.length * 2, at + STAMP));
      grown.set(this.stamps);
      this.stamps = grown;
    }
    const s = this.stamps;
    s[at] = st.mtimeMs;
    s[at + 1] = st.ctimeMs;
    s[at + 2] = st.ino;
    s[at + 3] = st.size;
  }
}
