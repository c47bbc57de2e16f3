import type { z } from 'zod';
import type { traceSchema } from '../../../api/schemas/evals';
import { duration } from '../format';

type Span = z.infer<typeof traceSchema>['spans'][number];

const CATEGORY_WORDS: Record<Span['category'], string> = {
  step: 'step',
  llm: 'model call',
  tool: 'tool call',
  judge: 'judge',
  'rate-limit': 'rate-limit wait',
  error: 'error',
};

/** The spans in start order, each after its parent, with its depth. */
function ordered(spans: Span[]): { span: Span; depth: number }[] {
  const children = new Map<string | undefined, Span[]>();
  const ids = new Set(spans.map((s) => s.id));
  for (const span of spans) {
    const parent = span.parentId !== undefined && ids.has(span.parentId) ? span.parentId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const out: { span: Span; depth: number }[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of [...(children.get(parent) ?? [])].sort((a, b) => a.startMs - b.startMs)) {
      out.push({ span, depth });
      walk(span.id, depth + 1);
    }
  };
  walk(undefined, 0);
  return out;
}

/**
 * The iteration's spans as a timeline: one row per span (steps, model calls, tool calls, waits, judge, errors),
 * a bar from its start to its end on the iteration's time scale. SVG attributes, not inline styles: the console's
 * CSP allows no style attributes.
 */
export function Timeline({ spans }: { spans: Span[] }) {
  if (spans.length === 0) return <p>No spans were recorded.</p>;
  const end = Math.max(1, ...spans.map((s) => s.endMs));
  return (
    <div class="table-wrap">
      <table class="timeline">
        <caption>Spans, in ms since the iteration started (0 to {Math.round(end)} ms)</caption>
        <thead>
          <tr>
            <th scope="col">Span</th>
            <th scope="col">Kind</th>
            <th scope="col">Start</th>
            <th scope="col">Duration</th>
            <th scope="col" class="timeline-bar-column">
              Timeline
            </th>
          </tr>
        </thead>
        <tbody>
          {ordered(spans).map(({ span, depth }) => {
            const x = (span.startMs / end) * 100;
            const width = Math.max(((span.endMs - span.startMs) / end) * 100, 0.4);
            return (
              <tr key={span.id} class={`span span-${span.category} status-${span.status}`}>
                <th scope="row" class={`depth-${Math.min(depth, 4)}`}>
                  {span.name}
                  {typeof span.toolName === 'string' && span.toolName !== span.name && (
                    <code class="muted"> {span.toolName}</code>
                  )}
                  {span.status !== 'ok' && <span class="badge badge-failed"> {span.status}</span>}
                </th>
                <td>{CATEGORY_WORDS[span.category]}</td>
                <td>{duration(span.startMs)}</td>
                <td>{duration(span.endMs - span.startMs)}</td>
                <td class="timeline-bar-column">
                  <svg class="timeline-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
                    <rect class={`bar bar-${span.category}`} x={x} y={1} width={Math.min(width, 100 - x)} height={8} />
                  </svg>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
