import YAML from 'yaml';
import { FRAGMENT_HEADER, parseNoteText, yamlEntry, type ParsedText } from './format.js';
import { mergeLines, unionOfAdded } from './lines3.js';

// The three-way merge of one note changed on two hosts (docs/hosts.md#the-merge-rules). A note is
// frontmatter, its own text, then merge fragments appended one after the other; so the merge is
// made part by part: frontmatter key by key, the note's own text and each fragment both hosts
// had by lines, and the fragments only one host has are all kept, in date order. Every choice
// depends on the three texts alone, never on which side is "ours", so both hosts of a merge
// compute the same bytes.

export type NoteMerge =
  | { kind: 'clean'; text: string }
  /** A true conflict: `text` holds git's markers where both sides changed the same text. */
  | { kind: 'conflict'; text: string; why: string }
  /** Two different notes (two uuids) were created under one file name. */
  | { kind: 'clash'; ours: string; theirs: string };

interface Version {
  raw: string;
  parsed: ParsedText;
}

const read = (raw: string): Version => ({ raw, parsed: parseNoteText(raw) });

/** A fragment's unit starts at the blank line before its `---`, as `merge` appended it. */
function unitStart(body: string, at: number): number {
  let s = at;
  if (body[s - 1] === '\r') s--;
  if (body[s - 1] === '\n') {
    s--;
    if (body[s - 1] === '\r') s--;
  }
  return s;
}

/** A body cut into the note's own text and each merge fragment, exactly as appended. */
export function bodyParts(body: string): string[] {
  const starts = [0];
  for (const m of body.matchAll(FRAGMENT_HEADER)) {
    const s = unitStart(body, m.index);
    if (s > starts[starts.length - 1]) starts.push(s);
  }
  return starts.map((s, i) => body.slice(s, starts[i + 1] ?? body.length));
}

const ONE_HEADER = new RegExp(FRAGMENT_HEADER.source);

/** A fragment's date line: its day or moment, for ordering. */
function fragmentWhen(unit: string): string {
  return ONE_HEADER.exec(unit)?.[1] ?? '';
}

/** Units only one side has, or more of on one side: each kept once per side that added it, by date. */
function newFragments(ours: string[], theirs: string[]): string[] {
  return unionOfAdded(ours, theirs).sort((x, y) => fragmentWhen(x).localeCompare(fragmentWhen(y)) || (x < y ? -1 : x > y ? 1 : 0));
}

interface Picked {
  text: string;
  conflict: boolean;
}

/** One part changed on both sides: whichever changed it, else merged by lines. */
function mergePart(base: string, ours: string, theirs: string): Picked {
  if (ours === theirs || theirs === base) return { text: ours, conflict: false };
  if (ours === base) return { text: theirs, conflict: false };
  return mergeLines(base, ours, theirs);
}

/** A frontmatter as its top-level keys, each with its own lines; undefined when it holds anything else (comments, blank lines). */
function keyBlocks(yaml: string): Map<string, string> | undefined {
  const blocks = new Map<string, string>();
  let key: string | undefined;
  for (const line of yaml.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    const k = /^([A-Za-z_][\w.-]*)[ \t]*:/.exec(line)?.[1];
    if (k) {
      if (blocks.has(k)) return undefined;
      blocks.set(k, line);
      key = k;
    } else if (key && /^(?:[ \t]+\S|-(?:[ \t]|\r?$))/.test(line)) {
      blocks.set(key, blocks.get(key)! + line);
    } else {
      return undefined;
    }
  }
  return blocks;
}

const valueOf = (block: string | undefined, key: string): unknown => {
  if (block === undefined) return undefined;
  try {
    return (YAML.parse(block, { schema: 'core' }) as Record<string, unknown>)?.[key];
  } catch {
    return undefined;
  }
};

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const stable = (v: unknown) => JSON.stringify(v);

/** The items of a list key both sides grew: the base's first, in its order, then the new ones sorted. */
function unionList(key: string, b?: string, o?: string, t?: string): unknown[] {
  const base = asList(valueOf(b, key));
  const seen = new Set(base.map(stable));
  const added = new Map<string, unknown>();
  for (const item of [...asList(valueOf(o, key)), ...asList(valueOf(t, key))]) if (!seen.has(stable(item))) added.set(stable(item), item);
  const when = (v: unknown) => String((v as { date?: unknown })?.date ?? '');
  const fresh = [...added.entries()].sort(([ka, a], [kb, bb]) => when(a).localeCompare(when(bb)) || ka.localeCompare(kb)).map(([, v]) => v);
  return [...base, ...fresh];
}

/** Keys changed on both sides that the tool knows how to combine; the rest are true conflicts. */
const LISTS = new Set(['supersedes', 'fragment_sources', 'split_from']);
const SUPERSESSION = ['superseded_by', 'superseded_at'];

/**
 * Which side's supersession to keep when both hosts superseded the note (a fork: both successors
 * stay current, and `tend check` reports it): a side that still marks the note superseded over
 * one that made it current, then the earlier moment, then the smaller uuid.
 */
function supersessionSide(o: Map<string, string>, t: Map<string, string>): Map<string, string> {
  const key = (m: Map<string, string>) =>
    [
      m.has('superseded_by') ? 0 : 1,
      String(valueOf(m.get('superseded_at'), 'superseded_at') ?? ''),
      String(valueOf(m.get('superseded_by'), 'superseded_by') ?? ''),
    ].join('\u0000');
  return key(o) <= key(t) ? o : t;
}

/**
 * The keys in merged order: the base's, then each key a side added, after the key it followed on
 * that side (keys taken in name order, so the order does not depend on the side).
 */
function keyOrder(b: Map<string, string>, o: Map<string, string>, t: Map<string, string>, kept: Set<string>): string[] {
  const order = [...b.keys()].filter((k) => kept.has(k));
  const added = [...kept].filter((k) => !b.has(k)).sort();
  for (const k of added) {
    const side = [...(o.has(k) ? o.keys() : t.keys())];
    const before = side
      .slice(0, side.indexOf(k))
      .reverse()
      .find((p) => order.includes(p));
    order.splice(before === undefined ? 0 : order.indexOf(before) + 1, 0, k);
  }
  return order;
}

/** Merge three frontmatter texts key by key; undefined when one cannot be read as plain keys. */
function mergeKeys(bText: string, oText: string, tText: string, eol: string): Picked | undefined {
  const b = keyBlocks(bText);
  const o = keyBlocks(oText);
  const t = keyBlocks(tText);
  if (!b || !o || !t) return undefined;
  const chosen = new Map<string, string>();
  const conflicts: string[] = [];
  const keys = new Set([...b.keys(), ...o.keys(), ...t.keys()]);
  const supersession = SUPERSESSION.some((k) => o.get(k) !== t.get(k) && o.get(k) !== b.get(k) && t.get(k) !== b.get(k)) ? supersessionSide(o, t) : undefined;
  for (const k of keys) {
    const [bv, ov, tv] = [b.get(k), o.get(k), t.get(k)];
    let v: string | undefined;
    if (supersession && SUPERSESSION.includes(k)) v = supersession.get(k);
    else if (ov === tv || tv === bv) v = ov;
    else if (ov === bv) v = tv;
    else if (LISTS.has(k)) v = yamlEntry(k, unionList(k, bv, ov, tv)).replace(/\n/g, eol);
    else if (k === 'archived_at') v = [ov, tv].filter((x): x is string => x !== undefined).sort()[0];
    else {
      conflicts.push(k);
      v = ov;
    }
    if (v !== undefined) chosen.set(k, v);
  }
  if (conflicts.length) return { ...mergeLines(bText, oText, tText), conflict: true };
  return {
    text: keyOrder(b, o, t, new Set(chosen.keys()))
      .map((k) => chosen.get(k)!)
      .join(''),
    conflict: false,
  };
}

/** A note's uuid as its frontmatter gives it, lowercase; empty without one. */
export const uuidOfText = (raw: string) => uuidOf(read(raw));
const uuidOf = (v: Version) =>
  String(v.parsed.frontmatter.uuid ?? '')
    .trim()
    .toLowerCase();

/** Merge a note changed on two hosts from a common base (an empty base: created on both). */
export function mergeNoteTexts(baseRaw: string, oursRaw: string, theirsRaw: string): NoteMerge {
  if (oursRaw === theirsRaw || theirsRaw === baseRaw) return { kind: 'clean', text: oursRaw };
  if (oursRaw === baseRaw) return { kind: 'clean', text: theirsRaw };
  const [base, ours, theirs] = [read(baseRaw), read(oursRaw), read(theirsRaw)];
  if (!baseRaw && uuidOf(ours) && uuidOf(theirs) && uuidOf(ours) !== uuidOf(theirs)) return { kind: 'clash', ours: oursRaw, theirs: theirsRaw };
  const whole = (): NoteMerge => {
    const r = mergeLines(baseRaw, oursRaw, theirsRaw);
    return r.conflict ? { kind: 'conflict', text: r.text, why: 'both sides changed the same lines' } : { kind: 'clean', text: r.text };
  };
  const all = [base, ours, theirs];
  if (!baseRaw || all.some((v) => v.parsed.yamlError) || new Set(all.map((v) => v.parsed.hasFrontmatter)).size > 1) return whole();

  const p = base.parsed;
  const yaml = (v: Version) => v.raw.slice(v.parsed.yamlStart, v.parsed.yamlEnd);
  const keys = p.hasFrontmatter
    ? (mergeKeys(yaml(base), yaml(ours), yaml(theirs), p.eol) ?? mergePart(yaml(base), yaml(ours), yaml(theirs)))
    : { text: '', conflict: false };

  const [bParts, oParts, tParts] = all.map((v) => bodyParts(v.parsed.body));
  if (oParts.length < bParts.length || tParts.length < bParts.length) return whole();
  const shared = bParts.map((b, i) => mergePart(b, oParts[i], tParts[i]));
  const added = newFragments(oParts.slice(bParts.length), tParts.slice(bParts.length));

  const front = p.hasFrontmatter ? baseRaw.slice(0, p.yamlStart) + keys.text + baseRaw.slice(p.yamlEnd, p.bodyOffset) : baseRaw.slice(0, p.bodyOffset);
  const text = front + shared.map((s) => s.text).join('') + added.join('');
  if (keys.conflict || shared.some((s) => s.conflict))
    return { kind: 'conflict', text, why: keys.conflict ? 'both sides changed the same frontmatter key' : 'both sides changed the same text' };
  return { kind: 'clean', text };
}
