import { useState } from 'preact/hooks';
import { api } from '../api';
import { every, when } from '../format';
import { useAction } from '../hooks';
import type { SuiteDetail } from '../types';
import { ErrorMessage } from './feedback';

/** The longest interval a schedule takes (api/schemas/suiteSchedule.ts MAX_INTERVAL_MINUTES): a week. */
const MAX_INTERVAL_MINUTES = 10_080;

/** The suite's schedule in words. */
export function scheduleSummary(schedule: SuiteDetail['schedule']): string {
  if (schedule.intervalMinutes === null) return 'No schedule.';
  const state = schedule.enabled
    ? `Runs ${every(schedule.intervalMinutes)}.`
    : `Paused (was ${every(schedule.intervalMinutes)}).`;
  const last = schedule.lastRunAt ? ` Last scheduled run ${when(schedule.lastRunAt)}.` : '';
  const skipped = schedule.lastSkipped
    ? ` Last skipped ${when(schedule.lastSkipped.at)}: ${schedule.lastSkipped.message}`
    : '';
  return state + last + skipped;
}

/** Run the suite every N minutes, or pause its schedule (`PATCH /eval-suites/{s}/schedule`). */
export function ScheduleForm({ suite, onSaved }: { suite: SuiteDetail; onSaved(suite: SuiteDetail): void }) {
  const [enabled, setEnabled] = useState(suite.schedule.enabled);
  const [minutes, setMinutes] = useState(String(suite.schedule.intervalMinutes ?? 60));
  const save = useAction(async () => {
    const updated = await api<SuiteDetail>(
      `/projects/${encodeURIComponent(suite.projectId)}/eval-suites/${encodeURIComponent(suite.id)}/schedule`,
      { method: 'PATCH', body: { enabled, intervalMinutes: Number(minutes) } },
    );
    onSaved(updated);
  });
  return (
    <form
      aria-labelledby="schedule-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h2 id="schedule-title">Schedule</h2>
      <p id="schedule-state">{scheduleSummary(suite.schedule)}</p>
      <div class="actions">
        <input
          id="schedule-enabled"
          type="checkbox"
          checked={enabled}
          onChange={(e) => setEnabled(e.currentTarget.checked)}
        />
        <label for="schedule-enabled">Run on a schedule</label>
        <label for="schedule-minutes">Every (minutes)</label>
        <input
          id="schedule-minutes"
          type="number"
          min={1}
          max={MAX_INTERVAL_MINUTES}
          step={1}
          required={enabled}
          value={minutes}
          onInput={(e) => setMinutes(e.currentTarget.value)}
        />
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save the schedule'}
        </button>
      </div>
      <ErrorMessage error={save.error} action="The schedule was not saved" />
    </form>
  );
}
