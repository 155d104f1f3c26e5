import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveNote } from '../src/corpus/ops/archive.js';
import { writeNote } from '../src/corpus/ops/ops.js';
import { trace } from '../src/corpus/trace/trace.js';
import { tempCorpus, write } from './helpers/corpus.js';

describe('archive', () => {
  it('moves notes into .archive/ without ever overwriting one already there', () => {
    const root = tempCorpus();
    write(root, 'a.md', '# First\n');
    expect(archiveNote(root, 'a.md')).toBe('.archive/a.md');
    write(root, 'a.md', '# Second\n');
    expect(archiveNote(root, 'a.md')).toBe('.archive/a-2.md');
    write(root, 'a.md', '# Third\n');
    expect(archiveNote(root, 'a.md', '# Third, marked\n')).toBe('.archive/a-3.md');
    expect(fs.existsSync(path.join(root, 'a.md'))).toBe(false);
    expect(fs.readFileSync(path.join(root, '.archive/a.md'), 'utf8')).toBe('# First\n');
    expect(fs.readFileSync(path.join(root, '.archive/a-2.md'), 'utf8')).toBe('# Second\n');
    expect(fs.readFileSync(path.join(root, '.archive/a-3.md'), 'utf8')).toBe('# Third, marked\n');
  });
});

describe('trace', () => {
  it('appends one JSON line per event with a UTC timestamp', () => {
    const root = tempCorpus();
    trace(root, 'test', { path: 'x.md', n: 1 });
    writeNote(root, { slug: 'judy', title: 'Judy' });
    const lines = fs.readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ event: 'test', path: 'x.md', n: 1 });
    expect(lines[0].ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(lines[1]).toMatchObject({ event: 'write', kind: null });
    expect(lines[1].path).toMatch(/^\d{8}-judy\.md$/);
  });

  it('never fails the work when the trace cannot be written', () => {
    const root = tempCorpus();
    fs.mkdirSync(path.join(root, '.zk', 'trace.jsonl'));
    expect(() => trace(root, 'x')).not.toThrow();
    const note = writeNote(root, { slug: 'judy', title: 'Judy' });
    expect(fs.existsSync(note.file)).toBe(true);
  });
});
