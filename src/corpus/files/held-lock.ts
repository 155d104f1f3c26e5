/** The lock a caller holds: check it is still ours before every write made under it. */
export interface HeldLock {
  /** Throws `busy` when the lock was taken over (this holder stalled past the stale window). */
  assertHeld(): void;
}
