import fs from 'node:fs';
import path from 'node:path';
import { current } from '../context.js';
import { ZkError } from '../errors.js';
import { CORPUS_NAME, readRegistry, registeredRoot, updateRegistry, type NamedCorpus } from '../corpus/registry.js';

// Corpora by name (docs/configuration.md#corpora-by-name): `corpus add|list|remove`, and what
// `--corpus NAME` and `serve --http` (at /mcp/NAME) read.

export type { NamedCorpus };

/** Register the corpus at `dir` (a folder holding `.zk/`) as `name`. */
export async function addCorpus(name: string, dir: string): Promise<NamedCorpus> {
  if (!CORPUS_NAME.test(name))
    throw new ZkError('usage', `invalid corpus name ${JSON.stringify(name)}: letters, digits, ".", "_" and "-", at most 64, starting with a letter or digit`);
  const abs = path.resolve(current().io.cwd(), dir);
  if (!fs.statSync(path.join(abs, '.zk'), { throwIfNoEntry: false })?.isDirectory())
    throw new ZkError('no_root', `${dir} is not a corpus (no .zk/ folder in it): zk-memory init makes one`);
  const root = fs.realpathSync(abs);
  return updateRegistry((corpora) => {
    const taken = corpora.find((c) => c.name === name || c.root === root);
    if (taken)
      throw new ZkError(
        'exists',
        taken.name === name ? `a corpus is registered as ${name} already (${taken.root}): remove it first` : `${root} is registered already, as ${taken.name}`,
      );
    const added = { name, root };
    return { corpora: [...corpora, added], result: added };
  });
}

export function listCorpora(): NamedCorpus[] {
  return readRegistry();
}

/** Forget the name `name`: the corpus itself is left as it is. */
export async function removeCorpus(name: string): Promise<NamedCorpus> {
  return updateRegistry((corpora) => {
    const gone = corpora.find((c) => c.name === name);
    if (!gone) throw new ZkError('not_found', `no corpus is registered as ${JSON.stringify(name)}`);
    return { corpora: corpora.filter((c) => c !== gone), result: gone };
  });
}

/** The root of the corpus registered as `name`; a name not registered is a usage error. */
export function corpusRoot(name: string): string {
  return registeredRoot(name);
}
