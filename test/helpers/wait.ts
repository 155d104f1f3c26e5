const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolve once `ok()` holds, checked every 50 ms; fail after `ms`, or as soon as `dead()` names a
 * reason (a process the wait depends on has exited).
 */
export async function until(what: string, ok: () => boolean | Promise<boolean>, ms: number, dead?: () => string | undefined): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    const why = dead?.();
    if (why) throw new Error(`${what}: ${why}`);
    if (Date.now() > deadline) throw new Error(`${what}: timed out after ${ms} ms`);
    await sleep(50);
  }
}
