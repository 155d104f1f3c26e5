import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startJob } from '../src/ingest/start.js';
import { tempCorpus, tempDir } from './helpers/corpus.js';
import { makePdf } from './helpers/documents.js';

describe('ingest start: what cannot be read is listed with the reason, never dropped', () => {
  it('names empty, binary, non-UTF-8, image-only, damaged and unsupported files, and reads the rest', async () => {
    const src = tempDir('zk-src-');
    const put = (name: string, content: string | Buffer) => fs.writeFileSync(path.join(src, name), content);
    put('a-empty.md', '');
    put('b-binary.txt', Buffer.from('abc\0def'));
    put('c-latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    put('d-scan.pdf', makePdf(['']));
    put('e-bad.pdf', '%PDF-1.4 not really');
    put('f-bad.docx', 'not a zip');
    put('g-data.csv', 'a,b\n');
    put('h-noext', 'x');
    put('i-windows.md', '\uFEFF# Title\r\n\r\nLine one.\r\nLine two.\r\n');
    fs.mkdirSync(path.join(src, '.hidden'));
    put('.hidden/secret.md', '# not inventoried\n');
    fs.symlinkSync(os.tmpdir(), path.join(src, 'j-link'));

    const root = tempCorpus();
    const r = await startJob(root, { from: src, name: 'mixed' });
    expect(r.manifest.documents.map((d) => d.path)).toEqual(['i-windows.md']);
    expect(fs.readFileSync(path.join(root, '.zk/ingest/mixed/docs/d1.md'), 'utf8')).toBe('# Title\n\nLine one.\nLine two.\n');
    const reasons = Object.fromEntries(r.manifest.unsupported.map((u) => [u.path, u.reason]));
    expect(Object.keys(reasons)).toEqual([
      'a-empty.md',
      'b-binary.txt',
      'c-latin1.txt',
      'd-scan.pdf',
      'e-bad.pdf',
      'f-bad.docx',
      'g-data.csv',
      'h-noext',
      'j-link',
    ]);
    expect(reasons).toMatchObject({
      'a-empty.md': 'empty file',
      'b-binary.txt': 'binary content (NUL bytes) in a text file',
      'c-latin1.txt': 'not valid UTF-8',
      'd-scan.pdf': 'no text could be extracted (scanned or image-only PDF?)',
      'g-data.csv': 'unsupported file type (.csv)',
      'h-noext': 'unsupported file type (no extension)',
      'j-link': 'symlinked folder (not followed)',
    });
    expect(reasons['e-bad.pdf']).toMatch(/^cannot convert pdf: \S/);
    expect(reasons['f-bad.docx']).toMatch(/^cannot convert docx: \S/);
  });
});
