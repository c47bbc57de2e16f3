/**
 * How well a run (or one side of a comparison) used each tool, from its aggregates: precision, recall and F1 per
 * tool, the confusions, and which tools were expected but never called or called but never expected. Pure: no I/O.
 * The run view's tool analysis and the comparison (compare.ts) score tools with the same scoreTool.
 */
import type { SideAggregates, ToolAggregate } from './aggregates.js';

export interface ToolSide {
  called: number;
  expected: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** One tool's scores: precision over its calls, recall over its expected calls (null where there were none). */
export function scoreTool(t: ToolAggregate | undefined): ToolSide {
  const called = t?.called ?? 0;
  const expected = t?.expected ?? 0;
  const matched = t?.matched ?? 0;
  const precision = called === 0 ? null : matched / called;
  const recall = expected === 0 ? null : matched / expected;
  const f1 =
    precision === null || recall === null
      ? null
      : precision + recall === 0
        ? 0
        : (2 * precision * recall) / (precision + recall);
  return { called, expected, precision, recall, f1 };
}

export interface ToolAnalysis {
  tools: ({ toolName: string; truePositives: number } & ToolSide)[];
  confusions: { expected: string; actual: string; count: number }[];
  coverage: {
    source: 'calls';
    toolsExpected: number;
    toolsCalled: number;
    expectedNeverCalled: string[];
    calledNeverExpected: string[];
  };
}

export function analyzeTools(side: Pick<SideAggregates, 'tools' | 'confusions'>): ToolAnalysis {
  const tools = side.tools
    .map((t) => ({ toolName: t.toolName, truePositives: t.matched, ...scoreTool(t) }))
    .sort((a, b) => (a.toolName < b.toolName ? -1 : a.toolName > b.toolName ? 1 : 0));
  return {
    tools,
    confusions: side.confusions.map((c) => ({ expected: c.expected, actual: c.called, count: c.count })),
    coverage: {
      source: 'calls',
      toolsExpected: tools.filter((t) => t.expected > 0).length,
      toolsCalled: tools.filter((t) => t.called > 0).length,
      expectedNeverCalled: tools.filter((t) => t.expected > 0 && t.called === 0).map((t) => t.toolName),
      calledNeverExpected: tools.filter((t) => t.called > 0 && t.expected === 0).map((t) => t.toolName),
    },
  };
}
