import YAML from 'yaml';
import type { Kind } from './kinds.js';

/** The parts of a note file as found on disk; nothing normalized away. */
export interface ParsedText {
  /** Parsed frontmatter; empty when there is none or it is not valid YAML. */
  frontmatter: Record<string, unknown>;
  hasFrontmatter: boolean;
  /** Why the frontmatter could not be read, when it could not. */
  yamlError?: string;
  /** Everything after the frontmatter block (or the whole text without one), BOM removed. */
  body: string;
  /** Offset in the text where the frontmatter's closing line ends (0 without frontmatter). */
  bodyOffset: number;
  /** Offsets of the YAML between the fences. */
  yamlStart: number;
  yamlEnd: number;
  /** The line ending the file uses ("\r\n" or "\n"). */
  eol: string;
}

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

/** Split a note's text into frontmatter and body, tolerating a BOM, CRLF and broken YAML. */
export function parseNoteText(raw: string): ParsedText {
  const bom = raw.startsWith('\uFEFF') ? 1 : 0;
  const text = raw.slice(bom);
  const eol = /\r\n/.test(text.slice(0, 4096)) ? '\r\n' : '\n';
  const none: ParsedText = {
    frontmatter: {},
    hasFrontmatter: false,
    body: text,
    bodyOffset: bom,
    yamlStart: bom,
    yamlEnd: bom,
    eol,
  };
  const open = OPEN.exec(text);
  if (!open) return none;
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return none;
  const yamlText = rest.slice(0, close.index);
  const bodyStart = open[0].length + close.index + close[0].length;
  const parsed: ParsedText = {
    frontmatter: {},
    hasFrontmatter: true,
    body: text.slice(bodyStart),
    bodyOffset: bom + bodyStart,
    yamlStart: bom + open[0].length,
    yamlEnd: bom + open[0].length + close.index,
    eol,
  };
  const simple = simpleFrontmatter(yamlText);
  if (simple) {
    parsed.frontmatter = simple;
    return parsed;
  }
  try {
    const value = YAML.parse(yamlText, { schema: 'core', prettyErrors: false });
    if (value === null || value === undefined) return parsed;
    if (typeof value !== 'object' || Array.isArray(value)) {
      parsed.yamlError = 'frontmatter is not a mapping';
      return parsed;
    }
    parsed.frontmatter = value as Record<string, unknown>;
  } catch (err) {
    parsed.yamlError = String((err as Error).message ?? err).split('\n')[0];
  }
  return parsed;
}

const SIMPLE_LINE = /^([A-Za-z_][A-Za-z0-9_]*): +(\S(?:.*\S)?) *\r?$/;
const SINGLE_QUOTED = /^'((?:[^']|'')*)'$/;
/** Plain scalars the YAML core schema reads as something other than a string. */
const NOT_A_STRING =
  /^(?:true|false|True|False|TRUE|FALSE|null|Null|NULL|~|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$/;

function simpleScalar(v: string): string | undefined {
  const quoted = SINGLE_QUOTED.exec(v);
  if (quoted) return quoted[1].replace(/''/g, "'");
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(v) || /:\s|\s#|\t/.test(v) || NOT_A_STRING.test(v)) return undefined;
  return v;
}

/**
 * Frontmatter made only of `key: string` lines (what the tool writes for most notes) read without
 * the YAML parser, which dominates the cost of listing a large corpus. Anything else (lists,
 * numbers, comments, double quotes, repeated keys) is left to the parser: undefined.
 */
export function simpleFrontmatter(yamlText: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of yamlText.split('\n')) {
    if (line === '' || line === '\r') continue;
    const m = SIMPLE_LINE.exec(line);
    if (!m || Object.hasOwn(out, m[1])) return undefined;
    const value = simpleScalar(m[2]);
    if (value === undefined) return undefined;
    out[m[1]] = value;
  }
  return out;
}

/** The first `# ` heading of a body, if any. */
export function firstHeading(body: string): string | undefined {
  const m = /^#[ \t]+(.+?)[ \t#]*\r?$/m.exec(body);
  return m ? m[1].trim() : undefined;
}

const YAML_OPTIONS = { singleQuote: true, lineWidth: 0, defaultKeyType: 'PLAIN' } as const;

/** One `key: value` YAML line (or block, for lists), quoted wherever YAML needs it. */
export function yamlEntry(key: string, value: unknown): string {
  const doc = new YAML.Document({ [key]: value }, { version: '1.2' });
  return doc.toString(YAML_OPTIONS);
}

export interface NewNoteFields {
  uuid: string;
  title: string;
  date: string;
  author?: string;
  kind?: Kind;
  supersedes?: string[];
  superseded_by?: string;
  /** When what it says holds true (docs/format.md#time). */
  valid_from?: string;
  valid_until?: string;
  /** Later optional keys (provenance and such), written after the standard ones. */
  extra?: Record<string, unknown>;
}

/** The frontmatter block of a new note, keys in the contract's order. */
export function renderFrontmatter(f: NewNoteFields): string {
  const entries: [string, unknown][] = [
    ['uuid', f.uuid],
    ['title', f.title],
    ['date', f.date],
  ];
  if (f.author) entries.push(['author', f.author]);
  if (f.kind) entries.push(['kind', f.kind]);
  if (f.supersedes && f.supersedes.length) entries.push(['supersedes', f.supersedes]);
  if (f.superseded_by) entries.push(['superseded_by', f.superseded_by]);
  if (f.valid_from) entries.push(['valid_from', f.valid_from]);
  if (f.valid_until) entries.push(['valid_until', f.valid_until]);
  for (const [k, v] of Object.entries(f.extra ?? {})) if (v !== undefined) entries.push([k, v]);
  return `---\n${entries.map(([k, v]) => yamlEntry(k, v)).join('')}---\n`;
}

/** A whole new note: frontmatter, `# Title`, body. */
export function renderNote(f: NewNoteFields, body: string): string {
  const text = body.replace(/^\s+|\s+$/g, '');
  const heading = `# ${f.title.replace(/\s*\n\s*/g, ' ')}`;
  return `${renderFrontmatter(f)}\n${heading}\n${text ? `\n${text}\n` : ''}`;
}

export interface DecisionParts {
  choice?: string;
  alternatives?: string[];
  rationale?: string;
}

/** A decision's body: the choice, the content, the alternatives considered and the rationale. */
export function decisionBody(content: string, parts: DecisionParts): string {
  const blocks: string[] = [];
  if (parts.choice?.trim()) blocks.push(`**Decision:** ${parts.choice.trim()}`);
  if (content.trim()) blocks.push(content.trim());
  const alts = (parts.alternatives ?? []).map((a) => a.trim()).filter(Boolean);
  if (alts.length) blocks.push(`**Alternatives considered:**\n${alts.map((a) => `- ${a}`).join('\n')}`);
  if (parts.rationale?.trim()) blocks.push(`**Rationale:** ${parts.rationale.trim()}`);
  return blocks.join('\n\n');
}

/**
 * A merge fragment's header (docs/format.md#merge-fragments): a `---` line, then
 * `*YYYY-MM-DD (source):*` (the tool now writes the moment, `*2026-12-02T04:51:07Z (source):*`)
 * and the fragment's text after one space on the same line, or after a blank line below it.
 * Group 1 is the date or moment. For `matchAll` only (the regex is global).
 */
export const FRAGMENT_HEADER = /\n---\r?\n\*(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}Z)?)(?: \([^\n]*?\))?:\*(?: |\r?\n\r?\n)/g;

/**
 * A line that, right below a line of paragraph text, makes that line into something else: a
 * setext heading's underline (`---`, `===`) or a GFM table's delimiter row (`--- | :--`). Made of
 * those characters alone; a few lines that do no harm (`- - -`) are taken too.
 */
const REBINDS_LINE_ABOVE = /^[-=:| \t]*[-=][-=:| \t]*$/;

/**
 * Whether the text, written on the date line, would pull that line into a heading or a table
 * head: some line of its first paragraph (up to its first blank line) after the first would.
 */
function rebindsDateLine(text: string): boolean {
  const blank = /\n[ \t]*\n/.exec(text);
  const paragraph = blank ? text.slice(0, blank.index) : text;
  return paragraph
    .split('\n')
    .slice(1)
    .some((line) => REBINDS_LINE_ABOVE.test(line));
}

/**
 * The exact merge fragment (docs/format.md#merge-fragments), in the line endings of the note it
 * goes into, so a CRLF note stays CRLF. The text starts on the date line, unless it would make
 * that line part of a heading or table: then it starts below it, after a blank line.
 */
export function mergeFragment(date: string, text: string, source?: string, eol = '\n'): string {
  const src = source ? ` (${source})` : '';
  const body = text.trim().replace(/\r\n?/g, '\n');
  const fragment = `\n\n---\n*${date}${src}:*${rebindsDateLine(body) ? '\n\n' : ' '}${body}\n`;
  return eol === '\n' ? fragment : fragment.replace(/\n/g, eol);
}
