// Read-modify-write of a counter file under the corpus lock, COUNT times: a lost update means two
// processes were inside the lock at once.
// usage: node counter.mjs ROOT COUNT
import fs from 'node:fs';
import path from 'node:path';

const [root, countText] = process.argv.slice(2);
const { withCorpusLock } = await import(new URL('../../dist/src/corpus/lock/lock.js', import.meta.url).href);
const { inCall } = await import('./in-call.mjs');
await inCall(async () => {
  const file = path.join(root, 'counter.txt');
  for (let i = 0; i < Number(countText); i++) {
    await withCorpusLock(root, async () => {
      const n = Number(fs.readFileSync(file, 'utf8').trim() || '0');
      await new Promise((r) => setTimeout(r, 2)); // widen the window a second holder would race into
      fs.writeFileSync(file, `${n + 1}\n`);
    });
  }
});
