import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../hooks';
import type { SuiteDetail } from '../types';
import { ErrorMessage } from './feedback';

type ModelRow = { model: string; provider: string };

/** The suite's models as the form edits them: the list, else the single default model. */
function modelRows(suite: SuiteDetail): ModelRow[] {
  const list = suite.models ?? (suite.executionConfig ? [{ model: suite.executionConfig.model }] : []);
  return list.map((m) => ({ model: m.model, provider: 'provider' in m ? (m.provider ?? '') : '' }));
}

/**
 * Edit a suite: name, description, default models, pass criteria (`PATCH /eval-suites/{s}`); runs started later use
 * them. The API's refusal is shown next to the form, and the form keeps what was typed.
 */
export function SuiteEditor({
  suite,
  onSaved,
  onCancel,
}: {
  suite: SuiteDetail;
  onSaved(suite: SuiteDetail): void;
  onCancel(): void;
}) {
  const [name, setName] = useState(suite.name);
  const [description, setDescription] = useState(suite.description ?? '');
  const [models, setModels] = useState<ModelRow[]>(() => modelRows(suite));
  const [minimum, setMinimum] = useState(String(suite.passCriteria.minimumPassRate));
  const save = useAction(async () => {
    const chosen = models
      .filter((m) => m.model.trim())
      .map((m) => ({ model: m.model.trim(), ...(m.provider.trim() && { provider: m.provider.trim() }) }));
    const updated = await api<SuiteDetail>(
      `/projects/${encodeURIComponent(suite.projectId)}/eval-suites/${encodeURIComponent(suite.id)}`,
      {
        method: 'PATCH',
        body: {
          name,
          description: description.trim() ? description : null,
          models: chosen.length > 0 ? chosen : null,
          passCriteria: { minimumPassRate: Number(minimum) },
        },
      },
    );
    onSaved(updated);
  });
  const setModel = (i: number, change: Partial<ModelRow>) =>
    setModels((rows) => rows.map((row, j) => (j === i ? { ...row, ...change } : row)));

  return (
    <form
      aria-labelledby="suite-editor-title"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <h3 id="suite-editor-title">Edit the suite</h3>
      <div class="form-grid">
        <label for="suite-name">Name</label>
        <input id="suite-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="suite-description">Description</label>
        <textarea
          id="suite-description"
          maxLength={5000}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label for="suite-minimum">Minimum pass rate (%)</label>
        <input
          id="suite-minimum"
          type="number"
          min={0}
          max={100}
          step="any"
          required
          value={minimum}
          onInput={(e) => setMinimum(e.currentTarget.value)}
        />
      </div>
      <fieldset>
        <legend>Models</legend>
        <p class="muted">Cases that name no model run with each of these; the first is the suite's default model.</p>
        {models.map((row, i) => (
          <div class="actions" key={i}>
            <label for={`suite-model-${i}`}>Model {i + 1}</label>
            <input
              id={`suite-model-${i}`}
              value={row.model}
              placeholder="gpt-4.1-mini"
              onInput={(e) => setModel(i, { model: e.currentTarget.value })}
            />
            <label for={`suite-provider-${i}`}>Provider</label>
            <input
              id={`suite-provider-${i}`}
              value={row.provider}
              placeholder="(from the model id)"
              onInput={(e) => setModel(i, { provider: e.currentTarget.value })}
            />
            <button
              type="button"
              class="secondary"
              aria-label={`Remove model ${i + 1}`}
              onClick={() => setModels((rows) => rows.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() => setModels((rows) => [...rows, { model: '', provider: '' }])}
        >
          Add a model
        </button>
      </fieldset>
      <ErrorMessage error={save.error} action="The suite was not saved" />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save the suite'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
