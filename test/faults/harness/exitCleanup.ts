import { rmSync } from 'node:fs';

/** What this test process started and has not cleaned up yet: `process.kill(target, signal)` on the way out. */
const live = new Map<number, NodeJS.Signals>();
const dirs = new Set<string>();

// afterAll does not run when the test process itself dies (Ctrl-C, a crash, vitest killing its worker): signal
// everything we started on the way out, so no API, worker, stdio MCP child, Temporal or Postgres outlives the test,
// then remove the stack's folders. Only an 'exit' handler runs then: it can signal and delete, not wait.
process.once('exit', () => {
  for (const [target, signal] of live) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Adds a process (pid) or a process group (-pgid) to the exit cleanup; returns the function that removes it. */
export function killOnExit(target: number, signal: NodeJS.Signals = 'SIGKILL'): () => void {
  live.set(target, signal);
  return () => live.delete(target);
}

/** Adds a folder to the exit cleanup; returns the function that removes it from there. */
export function removeOnExit(dir: string): () => void {
  dirs.add(dir);
  return () => dirs.delete(dir);
}
