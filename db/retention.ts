import type { Db } from './connection.js';
import type { RetentionCount, RetentionRules, RetentionStore } from '../domain/ports/retentionStore.js';
import type {
  OwnRetention,
  RetentionKind,
  RetentionPolicy,
  RetentionSetting,
  StoredRetention,
} from '../domain/retention/policy.js';

/*
 * Retention's queries (issue 33, domain/useCases/retention/applyRetention.ts). Each kind is one "doomed" query (what
 * has expired under each organization's policy in effect) used two ways: counted whole (a dry run), or cut to a
 * batch and removed in one statement (its own transaction: no lock outlives a batch). The kinds are disjoint, so a
 * dry run's counts are what a run removes (domain/retention/policy.ts RETENTION_KINDS).
 */

interface PolicyRow {
  id: string;
  name: string;
  trace_days: number | null;
  traces_forever: boolean | null;
  run_days: number | null;
  runs_forever: boolean | null;
}

const ownSetting = (days: number | null, forever: boolean | null): RetentionSetting =>
  forever ? 'forever' : (days ?? 'default');

const toRetention = (row: PolicyRow): StoredRetention => {
  const own: OwnRetention = {
    traceDays: ownSetting(row.trace_days, row.traces_forever),
    runDays: ownSetting(row.run_days, row.runs_forever),
  };
  return { organizationId: row.id, organizationName: row.name, own };
};

const ENDED = ['completed', 'failed', 'cancelled'];

/** Each organization's policy in effect: its own field, else the deployment's default; null days: kept for ever. */
const policies = (sql: Db, defaults: RetentionPolicy) => sql`
  SELECT o.id AS organization_id,
    CASE WHEN p.traces_forever THEN NULL ELSE COALESCE(p.trace_days, ${defaults.traceDays}::int) END AS trace_days,
    CASE WHEN p.runs_forever THEN NULL ELSE COALESCE(p.run_days, ${defaults.runDays}::int) END AS run_days
  FROM organizations o LEFT JOIN retention_policies p ON p.organization_id = o.id`;

/** The run `r` ended more than its organization's `run_days` ago (policy `p`). */
const runExpired = (sql: Db) => sql`(r.status = ANY(${ENDED}) AND p.run_days IS NOT NULL
  AND COALESCE(r.completed_at, r.created_at) < now() - make_interval(days => p.run_days))`;

/** What has expired, as (id, organization_id) rows; `limit` cuts it to a batch. */
function doomed(sql: Db, kind: RetentionKind, rules: RetentionRules, limit?: number) {
  const cut = limit === undefined ? sql`` : sql`LIMIT ${limit}`;
  const policy = policies(sql, rules.defaults);
  switch (kind) {
    case 'ingestBlobs':
      return sql`
        SELECT a.id, a.organization_id FROM ingest_artifacts a JOIN eval_runs r ON r.id = a.run_id
        WHERE a.content IS NOT NULL AND r.status = ANY(${ENDED}) ${cut}`;
    case 'iterations':
      return sql`
        SELECT i.id, r.organization_id FROM eval_runs r JOIN (${policy}) p ON p.organization_id = r.organization_id
        JOIN eval_iterations i ON i.run_id = r.id
        WHERE ${runExpired(sql)} ${cut}`;
    case 'runs':
      return sql`
        SELECT r.id, r.organization_id FROM eval_runs r JOIN (${policy}) p ON p.organization_id = r.organization_id
        WHERE ${runExpired(sql)} ${cut}`;
    case 'traces':
      return sql`
        SELECT t.iteration_id AS id, r.organization_id FROM eval_traces t
        JOIN eval_iterations i ON i.id = t.iteration_id JOIN eval_runs r ON r.id = i.run_id
        JOIN (${policy}) p ON p.organization_id = r.organization_id
        WHERE r.status = ANY(${ENDED}) AND p.trace_days IS NOT NULL
          AND t.created_at < now() - make_interval(days => p.trace_days)
          -- the oldest cutoff of all: lets the index on created_at bound the scan
          AND t.created_at < now() - make_interval(days => (SELECT min(trace_days) FROM (${policy}) m))
          AND NOT ${runExpired(sql)} ${cut}`;
    case 'artifactBlobs':
      return sql`
        SELECT a.id, a.organization_id FROM ingest_artifacts a JOIN (${policy}) p ON p.organization_id = a.organization_id
        WHERE a.content IS NOT NULL AND p.trace_days IS NOT NULL
          AND a.created_at < now() - make_interval(days => p.trace_days)
          AND NOT EXISTS (SELECT 1 FROM eval_runs r WHERE r.id = a.run_id AND r.status = ANY(${ENDED})) ${cut}`;
    case 'uploadUrls':
      return sql`
        SELECT a.id, a.organization_id FROM ingest_artifacts a
        WHERE a.used_at IS NULL AND a.expires_at < now() - ${rules.expiredUrlGraceMs} * interval '1 millisecond' ${cut}`;
  }
}

/** Removes the batch `d` of the kind: part of one statement, so of one short transaction. */
function removal(sql: Db, kind: RetentionKind) {
  switch (kind) {
    case 'ingestBlobs':
    case 'artifactBlobs':
      // the bytes go; the slot keeps its hash and reply (a retried upload still gets its first reply)
      return sql`UPDATE ingest_artifacts x SET content = NULL FROM d WHERE x.id = d.id RETURNING d.id, d.organization_id`;
    case 'iterations':
      return sql`DELETE FROM eval_iterations x USING d WHERE x.id = d.id RETURNING d.id, d.organization_id`;
    case 'runs':
      return sql`DELETE FROM eval_runs x USING d WHERE x.id = d.id RETURNING d.id, d.organization_id`;
    case 'uploadUrls':
      return sql`DELETE FROM ingest_artifacts x USING d WHERE x.id = d.id RETURNING d.id, d.organization_id`;
    case 'traces':
      return sql`DELETE FROM eval_traces x USING d WHERE x.iteration_id = d.id RETURNING d.id, d.organization_id`;
  }
}

/** A removed trace is noted on its iteration (the trace route says when it expired) and, the first time, its run. */
const noteExpiredTraces = (sql: Db) => sql`,
  marked AS (UPDATE eval_iterations i SET trace_expired_at = now() FROM gone g WHERE i.id = g.id RETURNING i.run_id),
  noted AS (
    UPDATE eval_runs r SET traces_expired_at = now()
    WHERE r.id IN (SELECT run_id FROM marked) AND r.traces_expired_at IS NULL RETURNING r.id)`;

const byOrganization = (rows: { organization_id: string; count: number }[]): RetentionCount[] =>
  rows.map((r) => ({ organizationId: r.organization_id, count: r.count }));

export function createRetentionStore(sql: Db): RetentionStore {
  return {
    async policies(organizationId) {
      const rows = await sql<PolicyRow[]>`
        SELECT o.id, o.name, p.trace_days, p.traces_forever, p.run_days, p.runs_forever
        FROM organizations o LEFT JOIN retention_policies p ON p.organization_id = o.id
        ${organizationId === undefined ? sql`` : sql`WHERE o.id = ${organizationId}`}
        ORDER BY o.created_at, o.id`;
      return rows.map(toRetention);
    },

    async setPolicy(organizationId, changes) {
      const days = (s: RetentionSetting | undefined) => (typeof s === 'number' ? s : null);
      const keep = (s: RetentionSetting | undefined) => s === undefined;
      const [row] = await sql<PolicyRow[]>`
        WITH org AS (SELECT id, name FROM organizations WHERE id = ${organizationId}),
        saved AS (
          INSERT INTO retention_policies (organization_id, trace_days, traces_forever, run_days, runs_forever)
          SELECT id, ${days(changes.traceDays)}::int, ${changes.traceDays === 'forever'},
                 ${days(changes.runDays)}::int, ${changes.runDays === 'forever'} FROM org
          ON CONFLICT (organization_id) DO UPDATE SET
            trace_days = CASE WHEN ${keep(changes.traceDays)} THEN retention_policies.trace_days ELSE EXCLUDED.trace_days END,
            traces_forever = CASE WHEN ${keep(changes.traceDays)} THEN retention_policies.traces_forever ELSE EXCLUDED.traces_forever END,
            run_days = CASE WHEN ${keep(changes.runDays)} THEN retention_policies.run_days ELSE EXCLUDED.run_days END,
            runs_forever = CASE WHEN ${keep(changes.runDays)} THEN retention_policies.runs_forever ELSE EXCLUDED.runs_forever END,
            updated_at = clock_timestamp()
          RETURNING *)
        SELECT org.id, org.name, s.trace_days, s.traces_forever, s.run_days, s.runs_forever
        FROM org JOIN saved s ON s.organization_id = org.id`;
      return row ? toRetention(row) : undefined;
    },

    async count(kind, rules) {
      return byOrganization(
        await sql<{ organization_id: string; count: number }[]>`
          SELECT organization_id, count(*)::int AS count FROM (${doomed(sql, kind, rules)}) d GROUP BY organization_id`,
      );
    },

    async purge(kind, rules, limit) {
      return byOrganization(
        await sql<{ organization_id: string; count: number }[]>`
          WITH d AS (${doomed(sql, kind, rules, limit)}), gone AS (${removal(sql, kind)})
            ${kind === 'traces' ? noteExpiredTraces(sql) : sql``}
          SELECT organization_id, count(*)::int AS count FROM gone GROUP BY organization_id`,
      );
    },
  };
}
