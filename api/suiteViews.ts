import type { ScheduledSuiteRow } from '../db/suiteSchedules.js';
import { scheduleView } from './scheduleView.js';

/** A suite's detail on the wire (suiteDetailSchema); `servers` are its saved servers that still exist. */
export function toSuiteDetail(suite: ScheduledSuiteRow, servers: { id: string; name: string }[]) {
  const names = new Map(servers.map((s) => [s.id, s.name]));
  return {
    id: suite.id,
    name: suite.name,
    description: suite.description === '' ? null : suite.description,
    projectId: suite.project_id,
    environment: { servers: suite.server_ids.flatMap((id) => names.get(id) ?? []) },
    executionConfig: suite.default_model === null ? null : { model: suite.default_model, systemPrompt: null, temperature: null },
    hosts: suite.host_id === null ? [] : [{ id: suite.host_id }],
    settings: { passCriteria: suite.pass_criteria },
    schedule: scheduleView(suite),
    createdAt: suite.created_at.getTime(),
    updatedAt: suite.updated_at.getTime(),
    serverIds: suite.server_ids,
    passCriteria: suite.pass_criteria,
    hostId: suite.host_id,
  };
}
