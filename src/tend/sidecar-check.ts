import fs from 'node:fs';
import { sidecar } from '../corpus/files/paths.js';
import type { Finding } from './check.js';

const GITIGNORE = '.zk/.gitignore';

/**
 * `.zk/.gitignore` when it is there but not a file (a folder, a symlink): git reads no ignore
 * rules from it, so the index, the lock and the inbox would be versioned. Writers leave such a
 * thing alone (src/corpus/files/sidecar.ts), so it is reported here, with the way out.
 */
export function gitignoreFindings(root: string): Finding[] {
  const st = fs.lstatSync(sidecar(root).gitignore, { throwIfNoEntry: false });
  if (!st || st.isFile()) return [];
  const what = st.isDirectory() ? 'a folder' : st.isSymbolicLink() ? 'a symlink' : 'not a file';
  return [
    {
      file: GITIGNORE,
      line: 1,
      label: '.gitignore',
      target: GITIGNORE,
      uuid: null,
      verdict: 'broken',
      reason: `${GITIGNORE} is ${what}, so git would version the index, the lock and the inbox: move it out of .zk/, and the next write (or zk-memory init) writes the file`,
    },
  ];
}
