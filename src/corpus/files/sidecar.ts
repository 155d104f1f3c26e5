import fs from 'node:fs';
import { recordChange } from '../../context.js';
import { sidecar } from './paths.js';

/** What `.zk/.gitignore` keeps out of git: derived or host-local state. */
const IGNORED = ['index/', 'lock', 'lock.*', 'lease', 'inbox/', 'intents/', 'ingest/', 'tmp/', 'tended.json', 'tokens.json', 'sync/', 'capture/', 'hooks.log'];
const HEADER = '# derived or host-local state; notes, .archive/ and trace.jsonl are versioned';

/**
 * Make sure a corpus has its `.zk/` folder and a `.gitignore` that covers every current entry
 * (entries someone added stay). Every writer calls this, so a corpus first written into is as
 * complete as one made by `init`. A `.gitignore` that is not a plain file (a planted symlink) is
 * left alone, never written through. Answers whether `.zk/` had to be created.
 */
export function ensureSidecar(root: string): boolean {
  const p = sidecar(root);
  const created = !fs.existsSync(p.zk);
  fs.mkdirSync(p.zk, { recursive: true });
  const st = fs.lstatSync(p.gitignore, { throwIfNoEntry: false });
  if (!st) {
    try {
      fs.writeFileSync(p.gitignore, [HEADER, ...IGNORED, ''].join('\n'), { flag: 'wx' });
      recordChange({ path: p.gitignore, what: 'created' });
    } catch {
      // another writer made it first
    }
    return created;
  }
  if (!st.isFile()) return created;
  const current = fs.readFileSync(p.gitignore, 'utf8');
  const lines = new Set(current.split(/\r?\n/).map((l) => l.trim()));
  const missing = IGNORED.filter((e) => !lines.has(e));
  if (missing.length) {
    const fd = fs.openSync(p.gitignore, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_NOFOLLOW);
    try {
      fs.writeSync(fd, `${current.endsWith('\n') || !current ? '' : '\n'}${missing.join('\n')}\n`);
      recordChange({ path: p.gitignore, what: 'appended' });
    } finally {
      fs.closeSync(fd);
    }
  }
  return created;
}
