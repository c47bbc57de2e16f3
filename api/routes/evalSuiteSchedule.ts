import type { Sql } from '../../db/connection.js';
import { listStoredServers } from '../../db/servers.js';
import {
  countEnabledSchedules,
  findSuiteWithSchedule,
  lockSuiteSchedule,
  setSuiteSchedule,
} from '../../db/suiteSchedules.js';
import { checkEnabledSchedules, formatCount, limits } from '../../domain/limits.js';
import { requireProject } from '../../domain/access/project.js';
import type { RouteDeps } from '../app.js';
import { notFound, validationError } from '../errors.js';
import { defineRoute } from '../route.js';
import { suiteParams } from '../schemas/evals.js';
import { MAX_INTERVAL_MINUTES, suiteScheduleBody } from '../schemas/suiteSchedule.js';
import { suiteDetailSchema } from '../schemas/suites.js';
import { toSuiteDetail } from '../suiteViews.js';

export function evalSuiteScheduleRoutes({ sql, schedules }: RouteDeps) {
  return [
    defineRoute({
      method: 'patch',
      path: '/projects/:projectId/eval-suites/:suiteId/schedule',
      tag: 'Evals',
      summary: 'Run a suite every N minutes, or pause its schedule',
      description:
        `enabled with intervalMinutes (1..${MAX_INTERVAL_MINUTES}) runs the suite on a Temporal Schedule: each due time starts an ordinary run (source "schedule") on the suite's saved servers with the organization's provider keys, under the organization's run cap. ` +
        "A due run that cannot start then (the cap is full, a model has no key, ...) is skipped and shown in the suite's schedule.lastSkipped; a due time while the suite's previous scheduled run is still going is skipped too. " +
        `An organization runs at most ${formatCount(limits.schedulesPerOrganization)} suites on a schedule (400, details.reason TOO_MANY_SCHEDULES). ` +
        'enabled false pauses the schedule, keeping it. Answers the suite detail.',
      params: suiteParams,
      body: suiteScheduleBody,
      response: suiteDetailSchema,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      async handler({ principal, params, body }) {
        const project = await requireProject(sql, principal, params.projectId);
        // The suite's row stays locked while Temporal is told, so changes to one suite's schedule apply in order.
        const suite = await (sql as Sql).begin(async (tx) => {
          const current = await lockSuiteSchedule(tx, project.id, params.suiteId);
          if (!current) throw notFound('eval suite', { suiteId: params.suiteId });
          // A scheduled run has no request to name servers: it runs on the suite's saved ones.
          if (body.enabled && current.serverIds.length === 0) {
            throw validationError(
              'this suite has no saved server selection to run on a schedule; save its serverIds first',
              { suiteId: current.id, reason: 'NO_SAVED_SERVER_SELECTION' },
            );
          }
          if (body.enabled && !current.scheduleEnabled)
            checkEnabledSchedules(
              current.organizationId,
              await countEnabledSchedules(tx, current.organizationId, current.id),
            );
          const intervalMinutes = body.intervalMinutes ?? current.scheduleIntervalMinutes;
          await schedules.apply({
            suiteId: current.id,
            suiteName: current.name,
            projectId: current.projectId,
            organizationId: current.organizationId,
            enabled: body.enabled,
            intervalMinutes,
          });
          await setSuiteSchedule(tx, current.id, { enabled: body.enabled, intervalMinutes });
          return (await findSuiteWithSchedule(tx, project.id, current.id))!;
        });
        return toSuiteDetail(suite, await listStoredServers(sql, project.id));
      },
    }),
  ];
}
