import type { Db } from '../db/connection.js';
import { listServerRows } from '../db/servers.js';
import { findSuiteWithSchedule, type ScheduledSuiteRow } from '../db/suiteSchedules.js';
import { notFound } from './errors.js';
import { scheduleView } from './scheduleView.js';
import type { SuiteDetail } from './schemas/suites.js';

/**
 * How one suite looks on the wire (suiteDetailSchema). `servers` are the project's saved servers (any order, any
 * superset of the suite's): the suite lists the names of those it names, in its own order; a server deleted since
 * is left out.
 */
export function toSuiteDetail(suite: ScheduledSuiteRow, servers: ReadonlyArray<{ id: string; name: string }>): SuiteDetail {
  const names = new Map(servers.map((s) => [s.id, s.name]));
  return {
    id: suite.id,
    name: suite.name,
    description: suite.description === '' ? null : suite.description,
    projectId: suite.project_id,
    environment: { servers: suite.server_ids.flatMap((serverId) => names.get(serverId) ?? []) },
    executionConfig: suite.default_model === null ? null : { model: suite.default_model, systemPrompt: null, temperature: null },
    hosts: [],
    settings: { passCriteria: suite.pass_criteria },
    schedule: scheduleView(suite),
    serverIds: suite.server_ids,
    passCriteria: suite.pass_criteria,
    hostId: suite.host_id,
    createdAt: suite.created_at.getTime(),
    updatedAt: suite.updated_at.getTime(),
  };
}

/** A live suite's detail, read with its schedule state and the project's server names; 404 when there is none. */
export async function loadSuiteDetail(sql: Db, projectId: string, suiteId: string): Promise<SuiteDetail> {
  const [suite, servers] = await Promise.all([findSuiteWithSchedule(sql, projectId, suiteId), listServerRows(sql, projectId)]);
  if (!suite) throw notFound('eval suite', { suiteId });
  return toSuiteDetail(suite, servers);
}
