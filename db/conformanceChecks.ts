import { storableText } from '../domain/columnLimits.js';
import { newId } from '../domain/ids.js';
import type {
  CHECK_FAILURE_CODES,
  ConformanceCheck,
  ConformanceCheckStatus,
} from '../domain/catalog/conformanceCheck.js';
import type { ConformanceReport, ConformanceRevision } from '../domain/mcp/conformance/report.js';
import type { ConformanceCheckStore, NewConformanceCheck } from '../domain/ports/conformanceCheckStore.js';
import { inTransaction, transactionOnly, type Db } from './connection.js';
import { lockOrganizationRuns } from './evalRuns.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';

/** conformance_checks (migration 063), as SQL spells it. */
export interface ConformanceCheckRow {
  id: string;
  organization_id: string;
  project_id: string;
  server_id: string;
  spec_version: ConformanceRevision;
  status: ConformanceCheckStatus;
  report: ConformanceReport | null;
  score: number | null;
  error_code: string | null;
  error_message: string | null;
  created_by_key_id: string | null;
  timeout_ms: number;
  deadline_at: Date;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

type _CheckIsRow = RowIsNoun<Same<Camel<ConformanceCheckRow>, ConformanceCheck>>;

/** A check left open past its deadline ends so (the domain's code; checked against it by the type). */
const LOST: (typeof CHECK_FAILURE_CODES)['lost'] = 'CHECK_LOST';

/** The columns' own bounds (migration 063). */
const ERROR_CODE_MAX = 64;
const ERROR_MESSAGE_MAX = 2000;
/** A suite's message is kept whole up to this many characters (a hostile server can make it huge). */
const REPORT_TEXT_MAX = 4000;

const clip = (text: string, max: number) => {
  const storable = storableText(text);
  return storable.length <= max ? storable : `${storable.slice(0, max - 1)}\u2026`;
};

/** The report as jsonb holds it: every string storable (no NUL, no lone surrogate) and bounded. */
function storableReport(report: ConformanceReport): ConformanceReport {
  return JSON.parse(JSON.stringify(report), (_key, value: unknown) =>
    typeof value === 'string' ? clip(value, REPORT_TEXT_MAX) : value,
  ) as ConformanceReport;
}

/** Conformance checks (domain/ports/conformanceCheckStore.ts) on a pool or a transaction of it. */
export function createConformanceCheckStore(sql: Db): ConformanceCheckStore {
  const one = (rows: ConformanceCheckRow[]) => camelRow(rows[0]) as ConformanceCheck | undefined;
  return {
    async expireLost(serverId) {
      const ended = await sql`
        UPDATE conformance_checks
        SET status = 'failed', error_code = ${LOST}, finished_at = now(),
            error_message = 'nothing was heard of the check past its time limit (its workflow or worker went away)'
        WHERE server_id = ${serverId} AND status IN ('queued', 'running') AND deadline_at <= now()`;
      return ended.count;
    },
    openCheck: async (serverId) =>
      one(
        await sql<ConformanceCheckRow[]>`
        SELECT * FROM conformance_checks WHERE server_id = ${serverId} AND status IN ('queued', 'running') AND deadline_at > now()
        ORDER BY created_at DESC LIMIT 1`,
      ),
    async lockServer(serverId) {
      await transactionOnly(sql, "a server's checks are locked")`
        SELECT pg_advisory_xact_lock(hashtext('conformance-checks'), hashtext(${serverId}))`;
    },
    // The same lock and count as creating a run, so a run and a check of one organization cannot pass the cap
    // together (lockOrganizationRuns counts the open checks too).
    lockActiveRuns: (organizationId) =>
      lockOrganizationRuns(transactionOnly(sql, "an organization's runs are locked"), organizationId),
    create: async (check: NewConformanceCheck) =>
      one(
        await sql<ConformanceCheckRow[]>`
        INSERT INTO conformance_checks (id, organization_id, project_id, server_id, spec_version, created_by_key_id,
                                        timeout_ms, deadline_at)
        VALUES (${newId('chk')}, ${check.organizationId}, ${check.projectId}, ${check.serverId}, ${check.specVersion},
                ${check.createdByKeyId}, ${check.timeoutMs},
                now() + make_interval(secs => ${(check.timeoutMs + check.deadlineMarginMs) / 1000}))
        ON CONFLICT (server_id) WHERE status IN ('queued', 'running') DO NOTHING
        RETURNING *`,
      ),
    find: async (serverId, checkId) =>
      one(
        await sql<ConformanceCheckRow[]>`
        SELECT * FROM conformance_checks WHERE server_id = ${serverId} AND id = ${checkId}`,
      ),
    byId: async (checkId) =>
      one(await sql<ConformanceCheckRow[]>`SELECT * FROM conformance_checks WHERE id = ${checkId}`),
    history: async (serverId, { after, limit }) =>
      camelRows(
        await sql<ConformanceCheckRow[]>`
        SELECT * FROM conformance_checks WHERE server_id = ${serverId}
        ${after ? sql`AND (created_at, id) < (${new Date(after.createdAt)}, ${after.id})` : sql``}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      ) as ConformanceCheck[],
    markRunning: async (checkId) =>
      one(
        await sql<ConformanceCheckRow[]>`
        UPDATE conformance_checks SET status = 'running', started_at = coalesce(started_at, now())
        WHERE id = ${checkId} AND status IN ('queued', 'running') RETURNING *`,
      ),
    async complete(checkId, report) {
      const stored = storableReport(report);
      const done = await sql`
        UPDATE conformance_checks
        SET status = 'completed', report = ${sql.json(stored as never)}, score = ${report.score.value},
            finished_at = now()
        WHERE id = ${checkId} AND status IN ('queued', 'running')`;
      return done.count > 0;
    },
    async end(checkId, ending) {
      const done = await sql`
        UPDATE conformance_checks
        SET status = ${ending.status}, error_code = ${clip(ending.code, ERROR_CODE_MAX)},
            error_message = ${clip(ending.message, ERROR_MESSAGE_MAX)}, finished_at = now()
        WHERE id = ${checkId} AND status IN ('queued', 'running')`;
      return done.count > 0;
    },
    transaction: (work) => inTransaction(sql, (tx) => work(createConformanceCheckStore(tx))),
  };
}
