import type { Db } from '../../db/connection.js';
import { findRun } from '../../db/evalRuns.js';
import type { Project } from '../catalog/project.js';
import { notFound } from '../failures.js';
import { requireProject } from './project.js';
import type { Principal } from '../principal.js';
import type { Run } from '../evals/run.js';

/** A run of a project the key may see, with its project; one elsewhere, or none, is the same 404. */
export async function requireRunOf(
  sql: Db,
  principal: Principal,
  params: { projectId: string; runId: string },
): Promise<{ project: Project; run: Run }> {
  const project = await requireProject(sql, principal, params.projectId);
  const run = await findRun(sql, project.id, params.runId);
  if (!run) throw notFound('eval run', { runId: params.runId });
  return { project, run };
}

/** A run of a project the key may see; one elsewhere, or none, is the same 404. */
export async function requireRun(
  sql: Db,
  principal: Principal,
  params: { projectId: string; runId: string },
): Promise<Run> {
  return (await requireRunOf(sql, principal, params)).run;
}
