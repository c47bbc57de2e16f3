import type { SuiteStore } from '../../ports/suiteStore.js';
import { requireVisibleProject } from '../../access/visibleProject.js';
import type { SuiteDetail } from '../../access/suite.js';
import { notFound, refused } from '../../failures.js';
import { checkEnabledSchedules } from '../../limits.js';
import type { SuiteSchedules } from '../../ports/suiteSchedules.js';
import type { Principal } from '../../principal.js';

/**
 * Runs a suite every N minutes, or pauses its schedule (keeping it). The suite's row stays locked while the schedule
 * service is told, so changes to one suite's schedule apply in order; the database keeps the wanted state only once
 * the service took it. An enabled schedule needs the suite's saved servers, and counts against the organization's
 * bound on scheduled suites.
 */
export function setSuiteSchedule(deps: { suites: SuiteStore; schedules: SuiteSchedules }) {
  return async function setSuiteSchedule(input: {
    principal: Principal;
    projectId: string;
    suiteId: string;
    enabled: boolean;
    /** unchanged when left out (or null) */
    intervalMinutes?: number | null;
  }): Promise<SuiteDetail> {
    const { suites, schedules } = deps;
    const project = await requireVisibleProject(suites, input.principal, input.projectId);
    const suite = await suites.transaction(async (tx) => {
      const current = await tx.lockSchedule(project.id, input.suiteId);
      if (!current) throw notFound('eval suite', { suiteId: input.suiteId });
      // A scheduled run has no request to name servers: it runs on the suite's saved ones.
      if (input.enabled && current.serverIds.length === 0) {
        throw refused('this suite has no saved server selection to run on a schedule; save its serverIds first', {
          suiteId: current.id,
          reason: 'NO_SAVED_SERVER_SELECTION',
        });
      }
      if (input.enabled && !current.scheduleEnabled)
        checkEnabledSchedules(
          current.organizationId,
          await tx.countEnabledSchedules(current.organizationId, current.id),
        );
      const intervalMinutes = input.intervalMinutes ?? current.scheduleIntervalMinutes;
      await schedules.apply({
        suiteId: current.id,
        suiteName: current.name,
        projectId: current.projectId,
        organizationId: current.organizationId,
        enabled: input.enabled,
        intervalMinutes,
      });
      await tx.saveSchedule(current.id, { enabled: input.enabled, intervalMinutes });
      return (await tx.findWithSchedule(project.id, current.id))!;
    });
    return { suite, servers: await suites.projectServers(project.id) };
  };
}

export type SetSuiteSchedule = ReturnType<typeof setSuiteSchedule>;
