import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A small deterministic PRNG so every run generates the same corpus. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = (
  'the a of to and in that it was for on with as at by from this have not but they his her she he we ' +
  'you all were when there can an which their said if do will each about how up out them then many some so these would ' +
  'other into has more two like time could no first been who its now people my made over did down only way find use may ' +
  'long day get come made part after back little only round year came show every good give under name very through just ' +
  'form great think say help low line before turn cause same mean differ move right boy old too does tell set three want'
).split(' ');

const TOPICS = (
  'deploy rollback database migration backup restore nginx postgres kubernetes cluster node container image ' +
  'pipeline release canary latency throughput cache redis queue worker cron export import invoice customer booking partner ' +
  'schedule rota incident outage alert pager dashboard metric budget hiring interview contract vendor license audit policy ' +
  'garden tomato basil compost watering harvest recipe bread sourdough flour oven dinner birthday holiday trip flight hotel ' +
  'museum painting sunrise lake mountain river kayak glacier hiking camera photo album concert guitar piano lesson teacher ' +
  'school homework exam library novel author chapter poem journal diary doctor appointment medicine allergy running marathon ' +
  'bicycle repair insurance mortgage apartment landlord neighbour plumber electrician furniture kitchen bathroom window'
).split(' ');

const NAMES = 'Judy Caroline Sam Maya Tomás Priya Jun Ana Björn Olu Mei Ravi Lena Noah Ines Pavel'.split(' ');

function pick<T>(r: () => number, xs: T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function sentence(r: () => number): string {
  const n = 8 + Math.floor(r() * 12);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    words.push(x < 0.65 ? pick(r, COMMON) : x < 0.95 ? pick(r, TOPICS) : pick(r, NAMES));
  }
  const s = words.join(' ');
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

/** The stem of the `i`th generated note. */
export function noteStem(i: number): string {
  return `2026${String(1 + (i % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}-note-${i}`;
}

/**
 * Make the first generated note a hub: `count` other notes (the next ones) each get one link to it,
 * appended as a hand edit would, once (a marker in `.zk/` says it is done). Returns the hub's stem.
 */
export function addBacklinks(root: string, count: number): string {
  const hub = noteStem(0);
  const marker = path.join(root, '.zk', `backlinks-${count}`);
  if (fs.existsSync(marker)) return hub;
  for (let i = 1; i <= count; i++) fs.appendFileSync(path.join(root, `${noteStem(i)}.md`), `\nSee also [the hub](${hub}.md).\n`);
  fs.writeFileSync(marker, '');
  return hub;
}

/**
 * Write `count` notes of realistic length and shape into `root` (created, with `.zk/`). With
 * `links`, the same notes each end with 0 to 4 links (as the tool writes them) to earlier notes,
 * drawn from their own generator and skewed to the first notes: a few hubs, a long tail (the
 * viewer's graph; note 0 gets about 4·√count links in, note j about 2·√(count/j)).
 */
export function generateCorpus(root: string, count: number, seed = 42, links = false): void {
  fs.mkdirSync(path.join(root, '.zk'), { recursive: true });
  const r = prng(seed);
  const rl = prng(seed + 1);
  const kinds = ['concept', 'entity_update', 'decision'];
  const made: { stem: string; title: string }[] = [];
  for (let i = 0; i < count; i++) {
    const title = `${pick(r, NAMES)} ${pick(r, TOPICS)} ${pick(r, TOPICS)} ${i}`;
    const stem = noteStem(i);
    const paragraphs: string[] = [];
    const pcount = 1 + Math.floor(r() * 4);
    for (let p = 0; p < pcount; p++) {
      const sentences: string[] = [];
      const scount = 2 + Math.floor(r() * 5);
      for (let s = 0; s < scount; s++) sentences.push(sentence(r));
      paragraphs.push(sentences.join(' '));
    }
    if (links && i > 0) {
      const to = new Set<number>();
      for (let k = Math.floor(rl() * 5); k > 0; k--) {
        const x = rl();
        to.add(Math.floor(i * x * x));
      }
      if (to.size) paragraphs.push(`Related: ${[...to].map((j) => `[${made[j].title}](${made[j].stem}.md)`).join(', ')}.`);
    }
    made.push({ stem, title });
    const uuid = crypto.randomUUID();
    const text = `---\nuuid: ${uuid}\ntitle: ${title}\ndate: 2026-11-01\nkind: ${pick(r, kinds)}\n---\n\n# ${title}\n\n${paragraphs.join('\n\n')}\n`;
    fs.writeFileSync(path.join(root, `${stem}.md`), text);
  }
}
