// Where the corpus is, as every surface finds it (a module of its own: the command line's client
// loads it on every call, and nothing else with it).
export { namedRoot, resolveRoot, rootOf } from '../corpus/files/root.js';
