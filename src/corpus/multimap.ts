/**
 * A map of keys to one value or several, a lone value held as itself. In the indexes a
 * long-running process keeps of every note (by name, uuid, title), nearly every key has one note,
 * and a list for each weighed 56 bytes more: some 400 MB at 1,000,000 notes over the indexes kept.
 * A value is never an array itself.
 */
export class MultiMap<K, V> {
  private readonly map = new Map<K, V | V[]>();

  /** The values under `key`, in the order they were added (a copy: for the caller to keep or change). */
  get(key: K): V[] {
    const at = this.map.get(key);
    return at === undefined ? [] : Array.isArray(at) ? at.slice() : [at];
  }

  /** Add `value` under `key`, unless it is the last one added there already. */
  add(key: K, value: V): void {
    const at = this.map.get(key);
    if (at === undefined) this.map.set(key, value);
    else if (!Array.isArray(at)) {
      if (at !== value) this.map.set(key, [at, value]);
    } else if (at[at.length - 1] !== value) at.push(value);
  }

  /** Take every value `same` as `value` from under `key`. */
  remove(key: K, value: V, same: (a: V, b: V) => boolean = (a, b) => a === b): void {
    const at = this.map.get(key);
    if (at === undefined) return;
    const left = (Array.isArray(at) ? at : [at]).filter((v) => !same(v, value));
    if (!left.length) this.map.delete(key);
    else this.map.set(key, left.length === 1 ? left[0] : left);
  }

  /** Put the values under `key` in their natural order. */
  sort(key: K): void {
    const at = this.map.get(key);
    if (Array.isArray(at)) at.sort();
  }

  /** Every key with its values (each a copy). */
  *entries(): IterableIterator<[K, V[]]> {
    for (const key of this.map.keys()) yield [key, this.get(key)];
  }
}
