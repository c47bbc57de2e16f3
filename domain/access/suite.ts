import type { SuiteStore } from '../ports/suiteStore.js';
import type { Principal } from '../principal.js';
import { requireVisibleProject } from './visibleProject.js';
import { notFound } from '../failures.js';
import type { SavedServer } from '../catalog/server.js';
import type { Suite, ScheduledSuite } from '../evals/suite.js';

/** What finding a suite the key may see reads. */
export type SuiteAccess = Pick<SuiteStore, 'visibleProject' | 'find'>;

/** A live suite of a project the key may see; a deleted one, or one elsewhere, is the same 404. */
export async function requireSuite(
  suites: SuiteAccess,
  principal: Principal,
  params: { projectId: string; suiteId: string },
): Promise<Suite> {
  const project = await requireVisibleProject(suites, principal, params.projectId);
  const suite = await suites.find(project.id, params.suiteId);
  if (!suite) throw notFound('eval suite', { suiteId: params.suiteId });
  return suite;
}

/**
 * A suite as its detail shows it: the suite with its schedule state, and the project's saved servers (any order, a
 * superset of the suite's) that name the suite's servers.
 */
export interface SuiteDetail {
  suite: ScheduledSuite;
  servers: { id: string; name: string }[];
}

/** A live suite's detail, read with its schedule state and the project's server names; 404 when there is none. */
export async function requireSuiteDetail(
  suites: Pick<SuiteStore, 'findWithSchedule' | 'projectServers'>,
  projectId: string,
  suiteId: string,
): Promise<SuiteDetail> {
  const [suite, servers] = await Promise.all([
    suites.findWithSchedule(projectId, suiteId),
    suites.projectServers(projectId),
  ]);
  if (!suite) throw notFound('eval suite', { suiteId });
  return { suite, servers };
}

/**
 * The suite's servers, for the expected-tool warnings (checkExpectedTools); none when one of them is deleted or
 * disabled since: its tools are unknown, so no tool can be said to be missing (and a case is never refused for it).
 * Their secrets are opened only when all of them can be asked.
 */
export async function suiteServersToCheck(
  suites: Pick<SuiteStore, 'sealedServers'>,
  suite: Suite,
): Promise<SavedServer[]> {
  const unique = [...new Set(suite.serverIds)];
  if (unique.length === 0) return [];
  const servers = await suites.sealedServers(suite.projectId, unique);
  return servers.length === unique.length && servers.every((s) => s.enabled) ? servers.map((s) => s.open()) : [];
}
