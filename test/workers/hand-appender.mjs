// A program that ignores the corpus lock, as an editor, a script or `echo >>` would: it appends a
// numbered line to a note every INTERVAL ms for DURATION ms, each time opening the file by name,
// writing the line in one write and closing it; every other line waits 2 ms between the open and
// the write, so some land in a file opened before the tool renamed a new version over it.
// With UNTIL, it goes on past DURATION until that file exists (30 s more at most). Prints how many
// lines it wrote.
import fs from 'node:fs';

const [file, interval, duration, tag, suffix = '', until] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const end = Date.now() + Number(duration);
const writing = () => Date.now() < end || (until !== undefined && !fs.existsSync(until) && Date.now() < end + 30_000);
let n = 0;
for (; writing(); n++) {
  const fd = fs.openSync(file, 'a');
  if (n % 2) await sleep(2);
  fs.writeSync(fd, `${tag}-${n} ${suffix}\n`);
  fs.closeSync(fd);
  await sleep(Number(interval));
}
process.stdout.write(String(n));
