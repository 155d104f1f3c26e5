// What the surfaces use of the domain beside the operations, as the library offers it: the words
// they check their input with (kinds, moments), where the corpus is, whether a process lives, and
// the seam a test kills a process at.
export { KINDS, type Kind } from '../corpus/note/kinds.js';
export { requireMoment } from '../corpus/note/moments.js';
export { pidAlive } from '../corpus/lock/lease.js';
export { crashAt } from '../corpus/ops/fault.js';
