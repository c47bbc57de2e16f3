import { expect } from 'vitest';
import type { apiClient } from './http.js';

type Call = ReturnType<typeof apiClient>;

/** Polls GET /eval-runs/{id} until the run leaves `running` (or the predicate holds). */
export async function waitForRun(call: Call, projectId: string, runId: string, until: (run: any) => boolean = (r) => r.status !== 'running', timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await call('GET', `/projects/${projectId}/eval-runs/${runId}`);
    expect(reply.status).toBe(200);
    if (until(reply.body)) return reply.body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${reply.body.status}: ${JSON.stringify(reply.body.progress)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every iteration of a run, walking the cursor. */
export async function allIterations(call: Call, projectId: string, runId: string, limit = 50): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const reply = await call('GET', `/projects/${projectId}/eval-runs/${runId}/iterations?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(reply.status).toBe(200);
    items.push(...reply.body.items);
    cursor = reply.body.nextCursor;
  } while (cursor);
  return items;
}
