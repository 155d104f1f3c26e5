import fs from 'node:fs';
import { sidecar } from './paths.js';

/** What `.zk/.gitignore` keeps out of git: derived or host-local state. */
const IGNORED = ['index/', 'lock', 'lock.holder', 'lease', 'inbox/', 'ingest/', 'tmp/', 'tended.json'];
const HEADER = '# derived or host-local state; notes, .archive/ and trace.jsonl are versioned';

/**
 * Make sure a corpus has its `.zk/` folder and a `.gitignore` that covers every current entry
 * (entries someone added stay). Every writer calls this, so a corpus first written into is as
 * complete as one made by `init`. Answers whether `.zk/` had to be created.
 */
export function ensureSidecar(root: string): boolean {
  const p = sidecar(root);
  const created = !fs.existsSync(p.zk);
  fs.mkdirSync(p.zk, { recursive: true });
  let current: string | undefined;
  try {
    current = fs.readFileSync(p.gitignore, 'utf8');
  } catch {
    current = undefined;
  }
  const lines = new Set((current ?? '').split(/\r?\n/).map((l) => l.trim()));
  const missing = IGNORED.filter((e) => !lines.has(e));
  if (current === undefined) fs.writeFileSync(p.gitignore, [HEADER, ...IGNORED, ''].join('\n'));
  else if (missing.length) fs.appendFileSync(p.gitignore, `${current.endsWith('\n') || !current ? '' : '\n'}${missing.join('\n')}\n`);
  return created;
}
