import { ratio } from './figures';

/** The reply of GET .../eval-runs/{runId}/tools. TODO: the type from A's schema once h18-api is merged. */
export interface ToolAnalysis {
  tools: {
    toolName: string;
    expected: number;
    called: number;
    truePositives: number;
    precision: number | null;
    recall: number | null;
    f1: number | null;
  }[];
  confusions: { expected: string; actual: string; count: number }[];
  coverage: { toolsExpected?: number; toolsCalled?: number } & Record<string, unknown>;
}

/** Per tool, how well the model chose it (precision, recall, F1); which tool it took for which; what went unused. */
export function ToolAnalysisView({ analysis }: { analysis: ToolAnalysis }) {
  return (
    <>
      {analysis.tools.length === 0 ? (
        <p>No tool was expected or called.</p>
      ) : (
        <div class="table-wrap">
          <table class="tools">
            <caption>Tool selection</caption>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col">Expected</th>
                <th scope="col">Called</th>
                <th scope="col">Precision</th>
                <th scope="col">Recall</th>
                <th scope="col">F1</th>
              </tr>
            </thead>
            <tbody>
              {analysis.tools.map((t) => (
                <tr key={t.toolName}>
                  <th scope="row">
                    <code>{t.toolName}</code>
                  </th>
                  <td>{t.expected}</td>
                  <td>{t.called}</td>
                  <td>{ratio(t.precision)}</td>
                  <td>{ratio(t.recall)}</td>
                  <td>{ratio(t.f1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {analysis.confusions.length > 0 && (
        <div class="table-wrap">
          <table class="confusions">
            <caption>Confusions: expected one tool, called another</caption>
            <thead>
              <tr>
                <th scope="col">Expected</th>
                <th scope="col">Called instead</th>
                <th scope="col">Times</th>
              </tr>
            </thead>
            <tbody>
              {analysis.confusions.map((c) => (
                <tr key={`${c.expected}/${c.actual}`}>
                  <td>
                    <code>{c.expected}</code>
                  </td>
                  <td>
                    <code>{c.actual}</code>
                  </td>
                  <td>{c.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Coverage coverage={analysis.coverage} />
    </>
  );
}

/** Coverage as the route gives it: counts as figures, lists of tool names as lists. */
function Coverage({ coverage }: { coverage: ToolAnalysis['coverage'] }) {
  const entries = Object.entries(coverage);
  if (entries.length === 0) return null;
  return (
    <dl class="figures coverage" aria-label="Coverage">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{words(name)}</dt>
          <dd>
            {Array.isArray(value)
              ? value.length === 0
                ? 'none'
                : value.map((v) => String(v)).join(', ')
              : typeof value === 'number'
                ? value < 1 && value > 0
                  ? ratio(value)
                  : value
                : String(value)}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** `toolsExpectedNeverCalled` -> "tools expected never called". */
function words(name: string): string {
  const spaced = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
