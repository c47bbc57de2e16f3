import type { Ref } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { percent } from '../format';

/** A point of a pass-rate trend: rates are 0..1; low/high, when given, are its 95% interval (drawn as a band). */
export interface TrendPoint {
  label: string;
  passRate: number;
  low?: number;
  high?: number;
}

/** The page's colours (styles.css), read when a chart is drawn, so a chart follows light and dark. */
function palette() {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    line: read('--chart-line', '#0a58ca'),
    band: read('--chart-band', 'rgba(10, 88, 202, 0.15)'),
    grid: read('--chart-grid', 'rgba(0, 0, 0, 0.08)'),
    text: read('--muted', '#57606a'),
  };
}

/** Draws with uPlot into the element, at its width; redrawn when the data or the element's width change. */
function useUPlot(
  make: (width: number) => { options: uPlot.Options; data: uPlot.AlignedData } | null,
  deps: unknown[],
) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const made = make(element.clientWidth || 300);
    if (!made) return;
    const plot = new uPlot(made.options, made.data, element);
    const resize = new ResizeObserver(() => {
      const width = element.clientWidth;
      if (width > 0 && width !== plot.width) plot.setSize({ width, height: plot.height });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
    // `make` is rebuilt every render; `deps` say when what it draws changes.
  }, deps);
  return ref;
}

/**
 * Pass rate over runs (oldest first) as a line, with the 95% interval as a band when the points carry one. The chart
 * is a picture: its text alternative says the same in words (first, last, lowest and highest).
 */
export function TrendChart({
  points,
  height = 180,
  label = 'Pass rate',
}: {
  points: TrendPoint[];
  height?: number;
  label?: string;
}) {
  const key = JSON.stringify(points);
  const ref = useUPlot(
    (width) => {
      if (points.length === 0) return null;
      const colors = palette();
      const hasBand = points.some((p) => p.low !== undefined && p.high !== undefined);
      const xs = points.map((_, i) => i);
      const rates = points.map((p) => p.passRate * 100);
      const data: uPlot.AlignedData = hasBand
        ? [xs, rates, points.map((p) => (p.low ?? p.passRate) * 100), points.map((p) => (p.high ?? p.passRate) * 100)]
        : [xs, rates];
      const axis = {
        stroke: colors.text,
        grid: { stroke: colors.grid, width: 1 },
        ticks: { stroke: colors.grid, width: 1 },
      };
      const options: uPlot.Options = {
        width,
        height,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: false, range: [-0.5, Math.max(points.length - 0.5, 0.5)] }, y: { range: [0, 100] } },
        axes: [
          {
            ...axis,
            splits: () => xs,
            values: (_u, splits) => splits.map((i) => (Number.isInteger(i) ? (points[i]?.label ?? '') : '')),
          },
          { ...axis, values: (_u, splits) => splits.map((v) => `${v}%`), size: 48 },
        ],
        series: [
          {},
          { label, stroke: colors.line, width: 2, points: { show: true, size: 6, fill: colors.line } },
          ...(hasBand
            ? [
                { label: '95% low', stroke: 'transparent', points: { show: false } },
                { label: '95% high', stroke: 'transparent', points: { show: false } },
              ]
            : []),
        ],
        bands: hasBand ? [{ series: [3, 2], fill: colors.band }] : [],
      };
      return { options, data };
    },
    [key, height],
  );
  if (points.length === 0) return <p class="muted">No finished runs yet: no trend to draw.</p>;
  return <div ref={ref as Ref<HTMLDivElement>} class="chart" role="img" aria-label={describeTrend(label, points)} />;
}

function describeTrend(label: string, points: TrendPoint[]): string {
  const rates = points.map((p) => p.passRate);
  const first = points[0];
  const last = points[points.length - 1];
  if (points.length === 1) return `${label}: one run, ${percent(first.passRate)}`;
  return `${label} over ${points.length} runs: from ${percent(first.passRate)} (${first.label}) to ${percent(last.passRate)} (${last.label}); lowest ${percent(Math.min(...rates))}, highest ${percent(Math.max(...rates))}`;
}

/** A small line of rates (0..1, null: no result in that run), oldest first, for a table cell. */
export function Sparkline({ values, label = 'Pass rate history' }: { values: (number | null)[]; label?: string }) {
  const key = JSON.stringify(values);
  const ref = useUPlot(() => {
    if (values.length === 0) return null;
    const colors = palette();
    const options: uPlot.Options = {
      width: 120,
      height: 28,
      pxAlign: false,
      legend: { show: false },
      cursor: { show: false },
      select: { show: false, left: 0, top: 0, width: 0, height: 0 },
      scales: { x: { time: false }, y: { range: [-5, 105] } },
      axes: [{ show: false }, { show: false }],
      series: [
        {},
        { stroke: colors.line, width: 1.5, points: { show: values.length <= 12, size: 4, fill: colors.line } },
      ],
    };
    const data: uPlot.AlignedData = [values.map((_, i) => i), values.map((v) => (v === null ? null : v * 100))];
    return { options, data };
  }, [key]);
  const known = values.filter((v): v is number => v !== null);
  const text =
    known.length === 0
      ? `${label}: no results yet`
      : `${label} over ${values.length} runs: ${values.map((v) => (v === null ? 'none' : percent(v))).join(', ')}`;
  return <span ref={ref as Ref<HTMLSpanElement>} class="sparkline" role="img" aria-label={text} />;
}
