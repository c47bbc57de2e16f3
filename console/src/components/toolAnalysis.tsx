import type { z } from 'zod';
import type { toolAnalysisSchema } from '../../../api/schemas/toolAnalysis';
import { ratio } from './figures';

/** The reply of GET .../eval-runs/{runId}/tools. */
export type ToolAnalysis = z.infer<typeof toolAnalysisSchema>;

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

/** Which tools were expected and called at all: what the run never exercised. */
function Coverage({ coverage }: { coverage: ToolAnalysis['coverage'] }) {
  return (
    <dl class="figures coverage" aria-label="Coverage">
      <div>
        <dt>Tools expected</dt>
        <dd>{coverage.toolsExpected}</dd>
      </div>
      <div>
        <dt>Tools called</dt>
        <dd>{coverage.toolsCalled}</dd>
      </div>
      <div>
        <dt>Expected, never called</dt>
        <dd>{coverage.expectedNeverCalled.join(', ') || 'none'}</dd>
      </div>
      <div>
        <dt>Called, never expected</dt>
        <dd>{coverage.calledNeverExpected.join(', ') || 'none'}</dd>
      </div>
    </dl>
  );
}
