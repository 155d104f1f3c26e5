import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { now } from '../context.js';
import { ZkError } from '../errors.js';
import { sha256, sidecarDir } from '../corpus/files/files.js';
import { ensureSidecar } from '../corpus/files/sidecar.js';
import { sidecar } from '../corpus/files/paths.js';
import { trace } from '../corpus/trace/trace.js';
import { documentKind, Unreadable } from './convert.js';
import { confinedSource, isWithin } from './confine.js';
import { BoundedConverter, defaultConvertLimits, type ConvertLimits } from './convert-bounded.js';
import { inventory, type SourceFile } from './inventory.js';
import { emptyState, jobFiles, jobName, listJobs, loadManifest, touch, type JobDocument, type JobManifest } from './state.js';
import { DEFAULT_WINDOW_CHARS, MIN_WINDOW_CHARS, planWindows } from './windows.js';
import { hint } from '../hints.js';

export interface StartOptions {
  /** A file or folder to read. */
  from?: string;
  /** Or the document itself, as Markdown, plain text or HTML; `name` names it (`notes.md`). */
  text?: string;
  name?: string;
  /**
   * The folders `from` must lie in, symlinks resolved (a reader that is not the host's owner:
   * MCP over HTTP); undefined: any path the process can read.
   */
  allowedFolders?: string[];
  windowChars?: number;
  /** Bounds on each document's conversion (time, memory, HTML depth, DOCX unpacked size). */
  limits?: Partial<ConvertLimits>;
}

export interface StartResult {
  /** `created` for a new job; `exists` when the job was already started on the same sources. */
  action: 'created' | 'exists';
  manifest: JobManifest;
}

/** The default job name: the source's file or folder name, without a file's extension. */
function defaultName(from: string): string {
  const base = path.basename(from);
  const ext = path.extname(base);
  return ext && fs.statSync(from).isFile() ? base.slice(0, -ext.length) : base;
}

/** The largest document taken as text with the call (`text`), in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 1024 * 1024;

interface ReadSource extends SourceFile {
  bytes?: Buffer;
  sha256?: string;
}

/**
 * Read every file found, each only while its real path is still under `within` (the source's real
 * path): a file swapped for a symlink after it was listed is not followed out.
 */
function readSources(files: SourceFile[], within: string): ReadSource[] {
  return files.map((f) => {
    if (f.unsupported) return f;
    try {
      if (!isWithin(fs.realpathSync(f.abs), within)) return { ...f, unsupported: 'symlink leads outside the sources (not followed)' };
      const bytes = fs.readFileSync(f.abs);
      return { ...f, bytes, sha256: sha256(bytes) };
    } catch (err) {
      return { ...f, unsupported: `unreadable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` };
    }
  });
}

/** What the sources were: every file's path and bytes, so a later start can tell whether they changed. */
function fingerprint(sources: ReadSource[]): string {
  return sha256(
    sources
      .map((s) => `${s.rel}\0${s.sha256 ?? ''}`)
      .sort()
      .join('\n'),
  );
}

/** A repeated start on the same sources resumes the job; anything else under that name is refused. */
function existingJob(root: string, name: string, from: string, sources: ReadSource[], windowChars?: number): StartResult {
  const m = loadManifest(root, name);
  if (m.from !== from || m.fingerprint !== fingerprint(sources)) {
    throw new ZkError('exists', `ingest job ${name} already exists with other sources (${m.from}): pick another ${hint('option', 'name')}`);
  }
  if (windowChars !== undefined && windowChars !== m.windowChars) {
    throw new ZkError(
      'exists',
      `ingest job ${name} already exists with ${hint('option', 'window-chars')} ${m.windowChars}: pick another ${hint('option', 'name')} for another size`,
    );
  }
  return { action: 'exists', manifest: m };
}

async function convertAll(
  sources: ReadSource[],
  docsDir: string,
  windowChars: number,
  limits: ConvertLimits,
): Promise<Pick<JobManifest, 'documents' | 'unsupported'>> {
  const converter = new BoundedConverter(limits);
  try {
    return await convertEach(sources, docsDir, windowChars, converter);
  } finally {
    await converter.close();
  }
}

async function convertEach(
  sources: ReadSource[],
  docsDir: string,
  windowChars: number,
  converter: BoundedConverter,
): Promise<Pick<JobManifest, 'documents' | 'unsupported'>> {
  const documents: JobDocument[] = [];
  const unsupported: JobManifest['unsupported'] = [];
  for (const s of sources) {
    if (s.unsupported || !s.kind || !s.bytes) {
      unsupported.push({ path: s.rel, reason: s.unsupported ?? 'unreadable' });
      continue;
    }
    let text: string;
    try {
      text = await converter.convert(s.kind, s.bytes);
    } catch (err) {
      const why = String((err as Error)?.message ?? err).split('\n')[0];
      unsupported.push({ path: s.rel, reason: err instanceof Unreadable ? why : `cannot convert ${s.kind}: ${why}` });
      continue;
    }
    const id = `d${documents.length + 1}`;
    fs.writeFileSync(path.join(docsDir, `${id}.md`), text);
    const windows = planWindows(text, windowChars).map((w, i) => ({ id: `${id}-w${i + 1}`, ...w }));
    documents.push({ id, path: s.rel, kind: s.kind, sha256: s.sha256 ?? '', chars: text.length, windows });
  }
  return { documents, unsupported };
}

/** A document given as text: one source named `name`, read as the kind its name says (Markdown unless told). */
function textSource(text: string, name: string | undefined): { from: string; name: string; sources: ReadSource[] } {
  if (!name?.trim()) throw new ZkError('usage', 'a document passed as text needs a name (such as notes.md)');
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > MAX_TEXT_BYTES)
    throw new ZkError('usage', `the text is ${bytes.length} bytes; at most ${MAX_TEXT_BYTES} are taken at once: pass it in parts, under several names`);
  const kind = documentKind(name) ?? 'markdown';
  if (kind === 'docx' || kind === 'pdf')
    throw new ZkError('usage', `a document passed as text is Markdown, plain text or HTML: name it .md, .txt or .html, not ${JSON.stringify(name)}`);
  const ext = path.extname(name);
  const base = documentKind(name) ? name.slice(0, -ext.length) : name;
  return { from: `text:${name}`, name: base, sources: [{ rel: name, abs: '', kind, bytes, sha256: sha256(bytes) }] };
}

/** The sources named by a path: every file under it, read (within the allowed folders, when there are some). */
function pathSources(
  given: string | undefined,
  name: string | undefined,
  allowedFolders: string[] | undefined,
): { from: string; name: string; sources: ReadSource[] } {
  // An empty path would resolve to the working directory, which nobody named.
  if (!given?.trim()) throw new ZkError('usage', `${hint('command', 'ingest start')} needs ${hint('option', 'from')} PATH: a file or a folder`);
  const from = allowedFolders ? confinedSource(given, allowedFolders) : path.resolve(given);
  const files = inventory(from);
  return { from, name: name ?? defaultName(from), sources: readSources(files, fs.realpathSync(from)) };
}

/**
 * Inventory and convert the sources, cut the windows, and publish the job in one rename, so a job
 * folder is either complete or absent.
 */
export async function startJob(root: string, o: StartOptions): Promise<StartResult> {
  if (o.text !== undefined && o.from !== undefined) throw new ZkError('usage', 'pass a path (from) or the document as text, not both');
  if (o.windowChars !== undefined && o.windowChars < MIN_WINDOW_CHARS) {
    throw new ZkError('usage', `--window-chars must be at least ${MIN_WINDOW_CHARS}`);
  }
  const given = o.text !== undefined ? textSource(o.text, o.name) : pathSources(o.from, o.name, o.allowedFolders);
  const { from, sources } = given;
  const name = jobName(given.name);
  if (listJobs(root).includes(name)) return existingJob(root, name, from, sources, o.windowChars);

  ensureSidecar(root);
  // Staged beside the jobs (a hidden name listJobs skips), so the final rename stays on one file system.
  const staging = path.join(sidecarDir(sidecar(root).ingest), `.staging-${crypto.randomUUID()}`);
  fs.mkdirSync(path.join(staging, 'docs'), { recursive: true });
  try {
    const windowChars = o.windowChars ?? DEFAULT_WINDOW_CHARS;
    const converted = await convertAll(sources, path.join(staging, 'docs'), windowChars, { ...defaultConvertLimits(), ...o.limits });
    if (!converted.documents.length) {
      const why = converted.unsupported
        .map((u) => `${u.path}: ${u.reason}`)
        .slice(0, 5)
        .join('; ');
      throw new ZkError('refused', `nothing to read under ${from}${why ? ` (${why})` : ''}`, { unsupported: converted.unsupported });
    }
    const manifest: JobManifest = {
      version: 2,
      name,
      from,
      fingerprint: fingerprint(sources),
      created: new Date(now()).toISOString(),
      windowChars,
      ...converted,
    };
    const state = emptyState();
    touch(state, 'start');
    fs.writeFileSync(path.join(staging, 'job.json'), `${JSON.stringify(manifest, null, 1)}\n`);
    fs.writeFileSync(path.join(staging, 'state.json'), `${JSON.stringify(state, null, 1)}\n`);
    try {
      fs.renameSync(staging, jobFiles(root, name).dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Another start of the same name finished first.
      if (code === 'EEXIST' || code === 'ENOTEMPTY') return existingJob(root, name, from, sources, o.windowChars);
      throw err;
    }
    trace(root, 'ingest_start', { job: name, documents: manifest.documents.length, unsupported: manifest.unsupported.length });
    return { action: 'created', manifest };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
