/** Warnings go to stderr, one line each, never to stdout (which may carry JSON). */
let sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`);

export function warn(message: string): void {
  sink(`warning: ${message}`);
}

/** Redirect warnings (e.g. to collect them in a long-running server). */
export function setWarningSink(fn: (line: string) => void): void {
  sink = fn;
}
