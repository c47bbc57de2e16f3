import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../hooks';
import type { EvalCase } from '../types';
import { formatExpectedCalls, parseExpectedCalls } from '../expectedCalls';
import { ErrorMessage } from './feedback';

/**
 * Add a case to a suite (`POST .../cases`) or edit one (`PATCH .../cases/{c}`): title, prompt, expected tool calls,
 * expected output, iterations, negative. A multi-turn case's prompts and expectations are edited through the API.
 */
export function CaseForm({
  projectId,
  suiteId,
  existing,
  onSaved,
  onCancel,
}: {
  projectId: string;
  suiteId: string;
  existing?: EvalCase;
  onSaved(): void;
  onCancel(): void;
}) {
  const id = existing ? `case-${existing.id}` : 'new-case';
  const multiTurn = Boolean(existing?.turns && existing.turns.length > 0);
  const [title, setTitle] = useState(existing?.title ?? '');
  const [prompt, setPrompt] = useState(existing?.prompt ?? '');
  const [expected, setExpected] = useState(formatExpectedCalls(existing?.expectedToolCalls ?? []));
  const [output, setOutput] = useState(existing?.expectedOutput ?? '');
  const [iterations, setIterations] = useState(String(existing?.iterations ?? 1));
  const [negative, setNegative] = useState(existing?.isNegative ?? false);
  const save = useAction(async () => {
    const base = `/projects/${encodeURIComponent(projectId)}/eval-suites/${encodeURIComponent(suiteId)}/cases`;
    const body: Record<string, unknown> = {
      title,
      iterations: Number(iterations),
      isNegative: negative,
    };
    if (!multiTurn) {
      body.prompt = prompt;
      body.expectedToolCalls = parseExpectedCalls(expected);
      if (output.trim()) body.expectedOutput = output;
      else if (existing?.expectedOutput !== undefined) body.expectedOutput = null;
    }
    if (existing) await api(`${base}/${encodeURIComponent(existing.id)}`, { method: 'PATCH', body });
    else await api(base, { method: 'POST', body });
    onSaved();
  });
  const heading = existing ? `Edit the case “${existing.title}”` : 'Add a case';
  return (
    <form
      aria-labelledby={`${id}-title`}
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3 id={`${id}-title`}>{heading}</h3>
      <div class="form-grid">
        <label for={`${id}-name`}>Title</label>
        <input
          id={`${id}-name`}
          required
          maxLength={500}
          value={title}
          onInput={(e) => setTitle(e.currentTarget.value)}
        />
        <label for={`${id}-prompt`}>Prompt</label>
        <textarea
          id={`${id}-prompt`}
          required={!multiTurn}
          disabled={multiTurn}
          value={prompt}
          onInput={(e) => setPrompt(e.currentTarget.value)}
        />
        <label for={`${id}-expected`}>Expected tool calls</label>
        <textarea
          id={`${id}-expected`}
          aria-describedby={`${id}-expected-help`}
          disabled={multiTurn}
          placeholder={'echo {"message": "hello"}'}
          value={expected}
          onInput={(e) => setExpected(e.currentTarget.value)}
        />
        <p id={`${id}-expected-help`} class="muted full">
          {multiTurn
            ? 'A multi-turn case: its prompts and expectations are edited through the API (turns).'
            : 'One call a line: the tool’s name, then optionally its arguments as JSON.'}
        </p>
        <label for={`${id}-output`}>Expected output</label>
        <input
          id={`${id}-output`}
          disabled={multiTurn}
          value={output}
          placeholder="(optional: text the answer contains)"
          onInput={(e) => setOutput(e.currentTarget.value)}
        />
        <label for={`${id}-iterations`}>Iterations per run</label>
        <input
          id={`${id}-iterations`}
          type="number"
          min={1}
          max={10}
          step={1}
          required
          value={iterations}
          onInput={(e) => setIterations(e.currentTarget.value)}
        />
        <label for={`${id}-negative`}>Negative (no tool may be called)</label>
        <input
          id={`${id}-negative`}
          type="checkbox"
          checked={negative}
          onChange={(e) => setNegative(e.currentTarget.checked)}
        />
      </div>
      <ErrorMessage error={save.error} action={existing ? 'The case was not saved' : 'The case was not added'} />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : existing ? 'Save the case' : 'Add the case'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
