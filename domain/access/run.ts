import type { Project } from '../catalog/project.js';
import { notFound } from '../failures.js';
import { requireVisibleProject } from './visibleProject.js';
import type { RunStore } from '../ports/runStore.js';
import type { Principal } from '../principal.js';
import type { Run } from '../evals/run.js';

/** What finding a run the key may see reads. */
export type RunAccess = Pick<RunStore, 'visibleProject' | 'find'>;

/** A run of a project the key may see, with its project; one elsewhere, or none, is the same 404. */
export async function requireRunOf(
  runs: RunAccess,
  principal: Principal,
  params: { projectId: string; runId: string },
): Promise<{ project: Project; run: Run }> {
  const project = await requireVisibleProject(runs, principal, params.projectId);
  const run = await runs.find(project.id, params.runId);
  if (!run) throw notFound('eval run', { runId: params.runId });
  return { project, run };
}

/** A run of a project the key may see; one elsewhere, or none, is the same 404. */
export async function requireRun(
  runs: RunAccess,
  principal: Principal,
  params: { projectId: string; runId: string },
): Promise<Run> {
  return (await requireRunOf(runs, principal, params)).run;
}
