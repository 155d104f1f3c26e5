import path from 'node:path';

/** The one place that knows where the tool's own files live inside a corpus root. */
export function sidecar(root: string) {
  const zk = path.join(root, '.zk');
  return {
    zk,
    gitignore: path.join(zk, '.gitignore'),
    lock: path.join(zk, 'lock'),
    lease: path.join(zk, 'lease'),
    index: path.join(zk, 'index'),
    trace: path.join(zk, 'trace.jsonl'),
    inbox: path.join(zk, 'inbox'),
    capture: path.join(zk, 'capture'),
    hookLog: path.join(zk, 'hooks.log'),
    ingest: path.join(zk, 'ingest'),
    intents: path.join(zk, 'intents'),
    tended: path.join(zk, 'tended.json'),
    /** Where an older version kept the HTTP tokens; never read to let a client in (src/api/token-store.ts). */
    tokens: path.join(zk, 'tokens.json'),
    archive: path.join(root, '.archive'),
  };
}

/** A path relative to the root, with forward slashes, for JSON output and the trace. */
export function relToRoot(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/');
}
