// Runs one of the tool's rewriting operations on a corpus again and again, through the library,
// until the file STOP exists. Prints `ready` once loaded, and at the end how many rounds rewrote a
// file; creates STOP.three once three rounds did (a loaded machine fits fewer in a fixed time).
// usage: node rewrite-loop.mjs ROOT MODE STOP   (MODE: robustify | repair | supersede | related)
import fs from 'node:fs';
import path from 'node:path';

const [root, mode, stop] = process.argv.slice(2);
const lib = await import(new URL('../../dist/src/index.js', import.meta.url).href);
// The gardener's judge keeps every note apart, so each pass links the notes it finds.
const llm = async (_messages, o) => (o.name === 'record_merge_decision' ? { action: 'create', target: '', reason: 'separate' } : null);

async function round(n) {
  if (mode === 'robustify' || mode === 'repair') return (await lib.tend(root, mode, { write: true })).changed > 0;
  if (mode === 'supersede') return (await lib.supersede(root, `old${n}`, 'hub')).action === 'superseded';
  // A new note on the hub's subject each round, so the next pass extends the hub's Related section.
  fs.writeFileSync(
    path.join(root, `20260102-sourdough-${n}.md`),
    `---\nuuid: ${crypto.randomUUID()}\ntitle: Sourdough ${n}\n---\n\nSourdough starter rye flour loaves, round ${n}.\n`,
  );
  const links = () => fs.readFileSync(path.join(root, '20260101-hub.md'), 'utf8').split('](20260102-sourdough-').length;
  const before = links();
  await lib.tendWrites(root, { llm, backend: 'rg' });
  return links() > before;
}

process.stdout.write('ready\n');
let rewrites = 0;
for (let n = 0; !fs.existsSync(stop); n++) if ((await round(n)) && ++rewrites === 3) fs.writeFileSync(`${stop}.three`, '');
process.stdout.write(`${rewrites}\n`);
