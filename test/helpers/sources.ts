import { tempDir } from './corpus.js';
// A source folder for ingest: Markdown with nested headings, a 200 KB text file, HTML, DOCX, PDF,
// plus one unsupported and one unreadable file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeDocx, makePdf } from './documents.js';

export const GUIDE_MD = [
  '# Deployment guide',
  '',
  '## Build',
  '',
  'Every build runs in a clean container so results repeat.',
  '',
  '```sh',
  'make build',
  '',
  'make test',
  '```',
  '',
  '### Caching',
  '',
  'Layers are cached per branch; a cache miss costs about four minutes.',
  '',
  '| stage | minutes |',
  '|---|---|',
  '| build | 4 |',
  '| test | 9 |',
  '',
  '## Release',
  '',
  'Releases go out on Tuesdays after the canary has been green for a day.',
  '',
].join('\n');

/** About 200 KB of plain text: ordinary paragraphs, one long paragraph without blank lines, one very long line. */
export function bigText(): string {
  const words = ['ledger', 'harbor', 'quartz', 'meadow', 'signal', 'copper', 'lantern', 'orbit', 'willow', 'ember'];
  const sentence = (i: number) => `Entry ${i} notes that the ${words[i % 10]} and the ${words[(i * 7) % 10]} moved together.`;
  const paras: string[] = [];
  let i = 0;
  while (paras.join('\n\n').length < 190_000) {
    const n = 2 + (i % 9);
    paras.push(Array.from({ length: n }, (_, k) => sentence(i * 10 + k)).join(' '));
    if (i === 40) paras.push(Array.from({ length: 160 }, (_, k) => `line ${k} of the long log paragraph ${words[k % 10]}`).join('\n'));
    if (i === 90) paras.push(Array.from({ length: 1200 }, (_, k) => `${words[k % 10]}${k}`).join(' '));
    i++;
  }
  return `${paras.join('\n\n')}\n`;
}

export const PAGE_HTML =
  '<!doctype html><html><head><title>Ops page</title><style>p{color:red}</style></head><body>' +
  '<h1>On-call</h1><p>The pager rotates <b>weekly</b>; see <a href="https://example.org/rota">the rota</a>.</p>' +
  '<h2>Hosts</h2><table><tr><th>Host</th><th>Role</th></tr><tr><td>db1</td><td>primary</td></tr><tr><td>db2</td><td>replica</td></tr></table>' +
  '<script>track()</script></body></html>';

export const PAGE_MD =
  '# On-call\n\nThe pager rotates **weekly**; see [the rota](https://example.org/rota).\n\n## Hosts\n\n' +
  '| Host | Role |\n| --- | --- |\n| db1 | primary |\n| db2 | replica |\n';

export const SPEC_PARAGRAPHS: Array<[string, string]> = [
  ['Heading1', 'Queue migration'],
  ['', 'We move the order queue from RabbitMQ to Kafka during the quiet week.'],
  ['Heading2', 'Risks'],
  ['', 'Consumer lag during the cutover is the main risk.'],
];

export const SPEC_MD =
  '# Queue migration\n\nWe move the order queue from RabbitMQ to Kafka during the quiet week.\n\n## Risks\n\nConsumer lag during the cutover is the main risk.\n';

export const SLIDES_PAGES = ['Retrospective\nThe outage began with a full disk.', 'Actions\nAlert at eighty percent disk use.'];

export const SLIDES_MD = '# Page 1\n\nRetrospective\nThe outage began with a full disk.\n\n# Page 2\n\nActions\nAlert at eighty percent disk use.\n';

/** The source folder; documents in reading order are guide.md, notes/big.txt, page.html, slides.pdf, spec.docx. */
export function sourceTree(): string {
  const dir = tempDir('zk-sources-');
  fs.mkdirSync(path.join(dir, 'notes'));
  fs.writeFileSync(path.join(dir, 'guide.md'), GUIDE_MD);
  fs.writeFileSync(path.join(dir, 'notes', 'big.txt'), bigText());
  fs.writeFileSync(path.join(dir, 'page.html'), PAGE_HTML);
  fs.writeFileSync(path.join(dir, 'slides.pdf'), makePdf(SLIDES_PAGES));
  fs.writeFileSync(path.join(dir, 'spec.docx'), makeDocx(SPEC_PARAGRAPHS));
  fs.writeFileSync(path.join(dir, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]));
  fs.writeFileSync(path.join(dir, 'broken.txt'), Buffer.from([0x66, 0xff, 0xfe, 0x41]));
  fs.mkdirSync(path.join(dir, '.git'));
  fs.writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  return dir;
}

export const CONVERTED: Record<string, () => string> = {
  'guide.md': () => GUIDE_MD,
  'notes/big.txt': bigText,
  'page.html': () => PAGE_MD,
  'slides.pdf': () => SLIDES_MD,
  'spec.docx': () => SPEC_MD,
};
