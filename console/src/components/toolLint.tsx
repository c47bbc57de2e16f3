import type { z } from 'zod';
import type { lintReportSchema } from '../../../api/schemas/toolLint';

type LintReport = z.infer<typeof lintReportSchema>;

/**
 * The doctor's tool lint (docs/SERVER-CHECKS.md "Tool lint"): each finding's rule, tool, where (field and JSON
 * Pointer), what, and the exact text it is about, highlighted, with invisible characters written as [U+200B].
 */
export function ToolLint({ lint }: { lint: LintReport }) {
  const { counts, findings, omitted } = lint;
  const total = counts.error + counts.warning;
  return (
    <details class="tool-lint" open={counts.error > 0}>
      <summary>
        Tool lint:{' '}
        {total === 0 ? (
          <span class="badge badge-passed">no findings</span>
        ) : (
          <>
            {counts.error > 0 && (
              <span class="badge badge-failed">
                {counts.error} error{counts.error === 1 ? '' : 's'}
              </span>
            )}{' '}
            {counts.warning > 0 && (
              <span class="badge badge-changed">
                {counts.warning} warning{counts.warning === 1 ? '' : 's'}
              </span>
            )}
          </>
        )}
      </summary>
      {findings.length > 0 && (
        <table aria-label="Tool lint findings">
          <thead>
            <tr>
              <th scope="col">Severity</th>
              <th scope="col">Rule</th>
              <th scope="col">Tool</th>
              <th scope="col">Where</th>
              <th scope="col">Finding</th>
            </tr>
          </thead>
          <tbody>
            {findings.map((finding, i) => (
              <tr key={i} class={`lint-${finding.severity}`}>
                <td>
                  <span class={`badge ${finding.severity === 'error' ? 'badge-failed' : 'badge-changed'}`}>
                    {finding.severity}
                  </span>
                </td>
                <td>
                  <code>{finding.rule}</code>
                </td>
                <td>
                  <code>{finding.tool}</code>
                </td>
                <td>
                  {finding.field}
                  {finding.pointer ? <code> {finding.pointer}</code> : null}
                  {finding.span && (
                    <span class="muted">
                      {' '}
                      ({finding.span.start}–{finding.span.end})
                    </span>
                  )}
                </td>
                <td>
                  {finding.span && (
                    <>
                      <mark class="lint-span">
                        <code>{finding.span.text}</code>
                      </mark>{' '}
                    </>
                  )}
                  {finding.message}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {omitted > 0 && <p class="muted">{omitted} more findings are not shown.</p>}
      {lint.incomplete && <p class="muted">{lint.incomplete.reason}.</p>}
    </details>
  );
}
