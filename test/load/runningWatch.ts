import type { Sql } from '../../db/connection.js';

export interface RunningWatch {
  /** stops sampling; resolves with the most runs ever seen running at once per organization, and the sample count */
  stop(): Promise<{ maxRunningByOrg: Map<string, number>; samples: number }>;
}

/**
 * Samples, straight from Postgres, how many API runs each organization has running, every `everyMs` until
 * stopped: the per-organization cap must hold at every instant, not only in the POST answers.
 */
export function watchRunningRuns(sql: Sql, organizationIds: string[], everyMs = 25): RunningWatch {
  const maxRunningByOrg = new Map(organizationIds.map((id) => [id, 0]));
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const rows = await sql<{ organization_id: string; running: number }[]>`
        SELECT organization_id, count(*)::int AS running FROM eval_runs
        WHERE organization_id = ANY(${organizationIds}) AND status = 'running' AND source = 'api'
        GROUP BY organization_id`;
      for (const r of rows)
        maxRunningByOrg.set(r.organization_id, Math.max(maxRunningByOrg.get(r.organization_id) ?? 0, r.running));
      samples += 1;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { maxRunningByOrg, samples };
    },
  };
}
