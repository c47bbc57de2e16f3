import { formatCount, limits } from '../../domain/limits.js';
import type { SetSuiteSchedule } from '../../domain/useCases/suites/setSuiteSchedule.js';
import { defineRoute } from '../route.js';
import { suiteParams } from '../schemas/evals.js';
import { MAX_INTERVAL_MINUTES, suiteScheduleBody } from '../schemas/suiteSchedule.js';
import { suiteDetailSchema } from '../schemas/suites.js';
import { suiteDetailView } from '../suiteViews.js';

export function evalSuiteScheduleRoutes(deps: { setSuiteSchedule: SetSuiteSchedule }) {
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
        return suiteDetailView(
          await deps.setSuiteSchedule({
            principal,
            ...params,
            enabled: body.enabled,
            intervalMinutes: body.intervalMinutes,
          }),
        );
      },
    }),
  ];
}
