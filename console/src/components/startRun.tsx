import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { runEstimateSchema } from '../../../api/schemas/evals';
import { api } from '../api';
import { count } from './figures';
import { usd } from '../format';
import { useAction } from '../hooks';
import { href } from '../router';
import { paths } from '../paths';
import { ErrorMessage } from './feedback';

type Estimate = z.infer<typeof runEstimateSchema>;

const counted = (n: number, noun: string) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

/**
 * Start a run of the suite (`POST /eval-runs` with its suiteId): its saved servers and cases, the organization's
 * provider keys. The new run's link is shown; the suite's tables are reloaded. "Estimate the cost" asks the same
 * with `dryRun: true`: the plan and its expected cost, nothing started.
 */
export function StartRun({ projectId, suiteId, onStarted }: { projectId: string; suiteId: string; onStarted(): void }) {
  const [notes, setNotes] = useState('');
  const [started, setStarted] = useState<string | null>(null);
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const estimateCost = useAction(async () => {
    setEstimate(
      await api<Estimate>(`/projects/${encodeURIComponent(projectId)}/eval-runs`, {
        method: 'POST',
        body: { suiteId, dryRun: true },
      }),
    );
  });
  const start = useAction(async () => {
    const reply = await api<{ runId: string }>(`/projects/${encodeURIComponent(projectId)}/eval-runs`, {
      method: 'POST',
      body: { suiteId, ...(notes.trim() && { notes: notes.trim() }) },
    });
    setStarted(reply.runId);
    setNotes('');
    onStarted();
  });
  return (
    <form
      aria-labelledby="start-run-title"
      onSubmit={(e) => {
        e.preventDefault();
        void start.run();
      }}
    >
      <h2 id="start-run-title">Start a run</h2>
      <div class="actions">
        <label for="run-notes">Notes</label>
        <input
          id="run-notes"
          maxLength={10_000}
          value={notes}
          placeholder="(optional)"
          onInput={(e) => setNotes(e.currentTarget.value)}
        />
        <button type="submit" disabled={start.busy}>
          {start.busy ? 'Starting…' : 'Start a run'}
        </button>
        <button type="button" disabled={estimateCost.busy} onClick={() => void estimateCost.run()}>
          {estimateCost.busy ? 'Estimating…' : 'Estimate the cost'}
        </button>
      </div>
      <ErrorMessage error={start.error} action="The run did not start" />
      <ErrorMessage error={estimateCost.error} action="Could not estimate the run" />
      {estimate && (
        <p id="run-estimate" role="status">
          A run would make {counted(estimate.plan.iterations, 'iteration')} ({counted(estimate.plan.cases, 'case')},{' '}
          {counted(estimate.plan.models, 'model')}), about {count(estimate.tokens.total)} tokens, and cost{' '}
          {estimate.costUsd
            ? `${usd(estimate.costUsd.expected)} (${usd(estimate.costUsd.low)} to ${usd(estimate.costUsd.high)})`
            : `an unknown amount: no price for ${estimate.unpricedModels.join(', ')}`}
          .
        </p>
      )}
      {started ? (
        <p role="status">
          Run started: <a href={href(paths.run, { projectId, runId: started })}>follow it live</a>.
        </p>
      ) : null}
    </form>
  );
}
