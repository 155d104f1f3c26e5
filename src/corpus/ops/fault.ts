import { settings } from '../../context.js';

/**
 * Test seam: die at `point` as a crash would (SIGKILL, nothing cleaned up) when
 * `ZK_MEMORY_FAULT` names it, so a test can prove what the next run finds and finishes.
 */
export function crashAt(point: string): void {
  if (settings().fault() === point) process.kill(process.pid, 'SIGKILL');
}
