import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../hooks';
import { href } from '../router';
import { paths } from '../paths';
import { ErrorMessage } from './feedback';

/**
 * Start a run of the suite (`POST /eval-runs` with its suiteId): its saved servers and cases, the organization's
 * provider keys. The new run's link is shown; the suite's tables are reloaded.
 */
export function StartRun({ projectId, suiteId, onStarted }: { projectId: string; suiteId: string; onStarted(): void }) {
  const [notes, setNotes] = useState('');
  const [started, setStarted] = useState<string | null>(null);
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
      </div>
      <ErrorMessage error={start.error} action="The run did not start" />
      {started ? (
        <p role="status">
          Run started: <a href={href(paths.run, { projectId, runId: started })}>follow it live</a>.
        </p>
      ) : null}
    </form>
  );
}
