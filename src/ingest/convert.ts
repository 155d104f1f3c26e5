import path from 'node:path';
import { htmlDepth } from './html-depth.js';

/** The document types ingest reads, by what it takes to turn them into Markdown. */
export type DocumentKind = 'markdown' | 'text' | 'html' | 'docx' | 'pdf';

const KIND_OF_EXTENSION: Record<string, DocumentKind> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.xhtml': 'html',
  '.docx': 'docx',
  '.pdf': 'pdf',
};

export function documentKind(file: string): DocumentKind | undefined {
  return KIND_OF_EXTENSION[path.extname(file).toLowerCase()];
}

/** Why a file cannot be read as a document: a one-line reason for `ingest status`. */
export class Unreadable extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decode text bytes; binary or non-UTF-8 content is unreadable, not guessed at. */
function decodeText(bytes: Buffer): string {
  if (bytes.includes(0)) throw new Unreadable('binary content (NUL bytes) in a text file');
  try {
    return utf8.decode(bytes);
  } catch {
    throw new Unreadable('not valid UTF-8');
  }
}

/** One line ending style and no byte-order mark, so offsets and headings read the same everywhere. */
function normalize(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/** How deep HTML may nest: turndown walks the tree recursively and slows down steeply with depth. */
export const MAX_HTML_DEPTH = 500;

/** HTML to Markdown with turndown (loaded only when needed), pipe tables included. */
async function htmlToMarkdown(html: string, maxDepth: number): Promise<string> {
  const depth = htmlDepth(html, maxDepth);
  if (depth > maxDepth) throw new Unreadable(`HTML nests more than ${maxDepth} levels deep: refused`);
  const { default: TurndownService } = await import('turndown');
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  td.remove(['script', 'style', 'noscript', 'template', 'title']);
  td.addRule('table', {
    filter: 'table',
    replacement: (_content, node) => `\n\n${pipeTable(node as unknown as HTMLTableElement)}\n\n`,
  });
  return td.turndown(html);
}

/** A table as a Markdown pipe table (cell text only), so windows can keep it whole. */
function pipeTable(table: HTMLTableElement): string {
  const rows = Array.from(table.rows, (row) => Array.from(row.cells, (cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|')));
  if (!rows.length) return '';
  const width = Math.max(...rows.map((r) => r.length), 1);
  const line = (cells: string[]) => `| ${Array.from({ length: width }, (_, i) => cells[i] ?? '').join(' | ')} |`;
  return [line(rows[0]), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n');
}

async function docxToMarkdown(bytes: Buffer, maxDepth: number): Promise<string> {
  const mammoth = (await import('mammoth')).default;
  // Images would come inline as base64 data: text nobody reads, and the largest part of many files.
  const convertImage = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));
  const { value } = await mammoth.convertToHtml({ buffer: bytes }, { convertImage });
  return htmlToMarkdown(value, maxDepth);
}

/** PDF text page by page with unpdf; each page becomes a `# Page N` section. */
async function pdfToMarkdown(bytes: Buffer): Promise<string> {
  const { extractText } = await import('unpdf');
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: false });
  return text.map((page, i) => `# Page ${i + 1}\n\n${page.trim()}\n`).join('\n');
}

/**
 * The Markdown text of a document. Throws Unreadable (or the converter's error) when there is none.
 * This runs the converter in the calling thread with no bound on time or memory: `ingest start`
 * goes through BoundedConverter (convert-bounded.ts) instead.
 */
export async function convertDocument(kind: DocumentKind, bytes: Buffer, o: { maxHtmlDepth?: number } = {}): Promise<string> {
  const maxDepth = o.maxHtmlDepth ?? MAX_HTML_DEPTH;
  let text: string;
  switch (kind) {
    case 'markdown':
    case 'text':
      text = decodeText(bytes);
      break;
    case 'html':
      text = await htmlToMarkdown(decodeText(bytes), maxDepth);
      break;
    case 'docx':
      text = await docxToMarkdown(bytes, maxDepth);
      break;
    case 'pdf':
      text = await pdfToMarkdown(bytes);
      break;
  }
  text = normalize(text);
  if (!text.trim()) throw new Unreadable(kind === 'markdown' || kind === 'text' ? 'empty file' : 'no text could be extracted');
  if (kind === 'pdf' && !text.replace(/^# Page \d+$/gm, '').trim()) throw new Unreadable('no text could be extracted (scanned or image-only PDF?)');
  // Markdown and text stay as they are; converted text ends with a newline like any Markdown file.
  return kind === 'markdown' || kind === 'text' || text.endsWith('\n') ? text : `${text}\n`;
}
