import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { archiveNote } from '../src/corpus/ops/archive.js';
import { writeNote } from '../src/corpus/ops/write.js';
import { trace } from '../src/corpus/trace/trace.js';
import { tempCorpus, write } from './helpers/corpus.js';
import { expectMomentSince } from './helpers/moments.js';

describe('archive', () => {
  it('moves notes into .archive/ without ever overwriting one already there', () => {
    const root = tempCorpus();
    const started = Date.now();
    write(root, 'a.md', '# First\n');
    expect(archiveNote(root, 'a.md')).toBe('.archive/a.md');
    write(root, 'a.md', '# Second\n');
    expect(archiveNote(root, 'a.md')).toBe('.archive/a-2.md');
    write(root, 'a.md', '# Third\n');
    expect(archiveNote(root, 'a.md', '# Third, marked\n')).toBe('.archive/a-3.md');
    expect(fs.existsSync(path.join(root, 'a.md'))).toBe(false);
    // Each archived copy records when it was archived, in a frontmatter of its own when it had none.
    const archived = (name: string) => {
      const text = fs.readFileSync(path.join(root, '.archive', name), 'utf8');
      const at = /^---\narchived_at: (\S+)\n---\n/.exec(text)?.[1];
      expectMomentSince(at, started);
      return text.slice(`---\narchived_at: ${at}\n---\n`.length);
    };
    expect(archived('a.md')).toBe('# First\n');
    expect(archived('a-2.md')).toBe('# Second\n');
    expect(archived('a-3.md')).toBe('# Third, marked\n');
  });

  it('records archived_at beside the other keys, every other byte kept; a note whose frontmatter is not valid YAML is archived as it is', () => {
    const root = tempCorpus();
    const started = Date.now();
    const kept = '---\r\ntitle: "Kept"\r\ncustom: [a, b]   # mine\r\n---\r\n# Kept\r\n';
    write(root, 'kept.md', kept);
    archiveNote(root, 'kept.md');
    const text = fs.readFileSync(path.join(root, '.archive/kept.md'), 'utf8');
    const at = /\r\narchived_at: (\S+)\r\n/.exec(text)?.[1];
    expectMomentSince(at, started);
    expect(text).toBe(kept.replace('---\r\n# Kept', `archived_at: ${at}\r\n---\r\n# Kept`));
    const broken = '---\ntitle: [unclosed\n---\n# Broken\n';
    write(root, 'broken.md', broken);
    archiveNote(root, 'broken.md');
    expect(fs.readFileSync(path.join(root, '.archive/broken.md'), 'utf8')).toBe(broken);
  });
});

describe('trace', () => {
  it('appends one JSON line per event with a UTC timestamp', () => {
    const root = tempCorpus();
    trace(root, 'test', { path: 'x.md', n: 1 });
    writeNote(root, { slug: 'judy', title: 'Judy' });
    const lines = fs
      .readFileSync(path.join(root, '.zk', 'trace.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
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
