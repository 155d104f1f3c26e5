import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { htmlDepth } from '../src/ingest/html-depth.js';
import { checkUnpackedSize } from '../src/ingest/zip-size.js';
import { tempCorpus, zk, zkProcess } from './helpers/corpus.js';
import { makeDocx, zipBombDocx } from './helpers/documents.js';
import { GUIDE_MD, PAGE_HTML, SPEC_PARAGRAPHS } from './helpers/sources.js';

const temps: string[] = [];
const temp = (dir: string) => (temps.push(dir), dir);
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A source folder holding good documents and the given hostile ones. */
function sources(hostile: Record<string, string | Buffer>): string {
  const dir = temp(fs.mkdtempSync(path.join(os.tmpdir(), 'zk-hostile-')));
  fs.writeFileSync(path.join(dir, 'guide.md'), GUIDE_MD);
  fs.writeFileSync(path.join(dir, 'page.html'), PAGE_HTML);
  fs.writeFileSync(path.join(dir, 'spec.docx'), makeDocx(SPEC_PARAGRAPHS));
  for (const [name, content] of Object.entries(hostile)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

const deepHtml = (levels: number) => `<html><body>${'<div>'.repeat(levels)}deep${'</div>'.repeat(levels)}</body></html>`;

describe('ingest start: a document that would eat the machine is refused, and the rest is read', () => {
  it('refuses HTML nested 100,000 deep, a DOCX that unpacks to 1 GiB, and one that lies about its size', async () => {
    const root = temp(tempCorpus());
    const from = sources({
      'deep.html': deepHtml(100_000),
      'bomb.docx': zipBombDocx(1024),
      'liar.docx': zipBombDocx(1024, 4096),
    });
    expect(fs.statSync(path.join(from, 'bomb.docx')).size).toBeLessThan(1.2 * 1024 * 1024);
    const r = await zk(['--root', root, 'ingest', 'start', '--from', from, '--json']);
    expect(r.code).toBe(0);
    expect(r.json.documents.map((d: any) => d.path)).toEqual(['guide.md', 'page.html', 'spec.docx']);
    expect(r.json.unsupported).toEqual([
      { path: 'bomb.docx', reason: 'unpacks to 1024 MiB (limit 256 MiB): refused before unpacking' },
      { path: 'deep.html', reason: 'HTML nests more than 500 levels deep: refused' },
      { path: 'liar.docx', reason: 'zip entry word/document.xml unpacks to more than the 4096 bytes it declares: refused' },
    ]);
    const status = await zk(['--root', root, 'ingest', 'status']);
    expect(status.stdout).toContain('not read:\n  bomb.docx: unpacks to 1024 MiB');
  }, 120_000);

  it('stops a converter that runs past its deadline and goes on with the next document', async () => {
    const root = temp(tempCorpus());
    const from = sources({});
    const env = { ZK_MEMORY_FAULT: 'convert-hang', ZK_MEMORY_INGEST_CONVERT_SECONDS: '1' };
    // The deadline is kept by the conversion worker of the built CLI: run it as a process.
    const r = await zkProcess(['--root', root, 'ingest', 'start', '--from', from, '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.json.documents.map((d: any) => d.path)).toEqual(['guide.md']);
    const refused = 'conversion took longer than 1 s: refused (ZK_MEMORY_INGEST_CONVERT_SECONDS)';
    expect(r.json.unsupported).toEqual([
      { path: 'page.html', reason: refused },
      { path: 'spec.docx', reason: refused },
    ]);
  }, 120_000);
});

describe('the cheap checks before a converter runs', () => {
  it('measures HTML nesting without counting elements the parser closes by itself', () => {
    expect(htmlDepth(PAGE_HTML)).toBe(1); // html, body, table rows and cells close by themselves
    expect(htmlDepth('<div><section><p><b>x</b></p><em>y</em></section></div>')).toBe(3);
    expect(htmlDepth(deepHtml(100_000), 500)).toBe(501);
    expect(htmlDepth(`<ul>${'<li>item<p>para'.repeat(10_000)}</ul>`)).toBe(1);
    expect(htmlDepth(`<svg>${'<path d="M0 0"/>'.repeat(1000)}</svg>`)).toBe(1);
    expect(htmlDepth(`${'<div/>'.repeat(800)}`, 500)).toBe(501); // in HTML the slash does not close a div
    expect(htmlDepth(`<script>${'<div>'.repeat(1000)}</script><p>after`)).toBe(1);
  });

  it('lets an ordinary DOCX through and refuses one by its directory before unpacking', async () => {
    const limits = { unpackedBytes: 256 << 20, entries: 10_000 };
    await expect(checkUnpackedSize(makeDocx(SPEC_PARAGRAPHS), limits)).resolves.toBeUndefined();
    await expect(checkUnpackedSize(zipBombDocx(300), limits)).rejects.toThrow('unpacks to 300 MiB (limit 256 MiB)');
    await expect(checkUnpackedSize(zipBombDocx(300), { ...limits, entries: 1 })).rejects.toThrow('zip archive lists 2 entries (limit 1)');
    await expect(checkUnpackedSize(zipBombDocx(8, 100), limits)).rejects.toThrow('unpacks to more than the 100 bytes it declares');
    await expect(checkUnpackedSize(Buffer.from('not a zip at all, just text'), limits)).rejects.toThrow('damaged zip archive');
  });
});
