// A process that holds the corpus lock, for lock tests.
// usage: node locker.mjs ROOT MODE ...
//   count N HOLD_MS   N times: under the lock say `locked`, read `counter`, wait HOLD_MS (the event loop runs), write it + 1
//   stall MS          take the lock, block the event loop for MS, then try to write `stalled` under it
const [root, mode, a, b] = process.argv.slice(2);
const fs = await import('node:fs');
const path = await import('node:path');
const { withCorpusLock } = await import(new URL('../../dist/src/corpus/lock/lock.js', import.meta.url).href);
const { inCall } = await import('./in-call.mjs');
await inCall(async () => {
  const counter = path.join(root, 'counter');
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  if (mode === 'count') {
    for (let i = 0; i < Number(a); i++) {
      await withCorpusLock(root, async (lock) => {
        process.stdout.write('locked\n');
        const n = Number(fs.readFileSync(counter, 'utf8'));
        await sleep(Number(b));
        lock.assertHeld();
        fs.writeFileSync(counter, String(n + 1));
      });
    }
  } else if (mode === 'stall') {
    try {
      await withCorpusLock(root, (lock) => {
        process.stdout.write('locked\n');
        const until = Date.now() + Number(a);
        while (Date.now() < until) {
          /* a synchronous step that never lets the heartbeat run */
        }
        lock.assertHeld();
        fs.writeFileSync(path.join(root, 'stalled'), 'written');
      });
      process.stdout.write('wrote\n');
    } catch (err) {
      process.stdout.write(`refused: ${err.code}: ${err.message}\n`);
    }
  }
});
