/**
 * Whether the server is idle: calls under way, and when it last heard from anyone. Measured on the
 * monotonic clock: a system clock set back an hour must not keep a server an hour longer.
 */
export class Activity {
  private busy = 0;
  private lastActive = performance.now();

  /** Something happened: a request came, a connection closed, a viewer page is open. */
  touch(): void {
    this.lastActive = performance.now();
  }

  /** A call begins (a command line, or one call of an MCP session); the function returned ends it. */
  begin(): () => void {
    this.busy++;
    this.touch();
    return () => {
      this.busy--;
      this.touch();
    };
  }

  /** Whether no call is under way. */
  quiet(): boolean {
    return this.busy === 0;
  }

  /** Whether nothing has happened for `idleMs`, with no call under way and no connection open. */
  idle(idleMs: number, connections: number): boolean {
    return this.busy === 0 && connections === 0 && performance.now() - this.lastActive >= idleMs;
  }
}
