import fs from 'node:fs';

/** The state letter of process `pid` (R, S, T, Z, …), or undefined when there is none. */
function processState(pid: number | string): string | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
  } catch {
    return undefined;
  }
}

/** Whether process `pid` has ended (a zombie nobody reaped yet counts as ended). */
export function processGone(pid: number): boolean {
  const state = processState(pid);
  return state === undefined || state === 'Z' || state === 'X';
}

/** The pids of the running zk-memory servers whose command line (`serve` and its arguments) `matches`. */
export function serverPids(matches: (args: string[]) => boolean): number[] {
  return fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).flatMap((p) => {
    try {
      const args = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return args.includes('serve') && matches(args) && !processGone(Number(p)) ? [Number(p)] : [];
    } catch {
      return [];
    }
  });
}
