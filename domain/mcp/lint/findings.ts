/** What tool lint reports (domain/mcp/lint): the rules, the finding's shape, and the caps that bound a report. */

export type LintSeverity = 'warning' | 'error';

export type LintField = 'name' | 'title' | 'description' | 'inputSchema' | 'outputSchema';

export const LINT_RULES = [
  'name-invalid',
  'name-duplicate',
  'schema-invalid',
  'schema-not-object',
  'schema-unchecked',
  'description-missing',
  'description-long',
  'hidden-unicode',
  'instruction-phrase',
  'model-markup',
  'name-shared-across-servers',
] as const;

export type LintRule = (typeof LINT_RULES)[number];

/** Where in a field's text a finding is: UTF-16 offsets, and the text there with what cannot be seen escaped. */
export interface LintSpan {
  start: number;
  end: number;
  /** the text of [start, end), invisible and control characters written as [U+200B]; at most SPAN_TEXT_MAX long */
  text: string;
}

export interface LintFinding {
  rule: LintRule;
  severity: LintSeverity;
  /** the tool's name as listed */
  tool: string;
  field: LintField;
  message: string;
  /**
   * inside a schema, or a text nested in the tool (annotations.title): the JSON Pointer of the place, e.g.
   * `/properties/query/description` (the span then is in that string)
   */
  pointer?: string;
  span?: LintSpan;
  /** description-long: the description's token count (o200k_base) */
  tokens?: number;
  /** name-shared-across-servers: the servers that list the tool */
  servers?: { serverId: string; name: string }[];
}

export interface LintReport {
  /** the protocol revision the tools were read under (null: not known) */
  protocolRevision: string | null;
  counts: { error: number; warning: number };
  /** at most MAX_FINDINGS, errors first */
  findings: LintFinding[];
  /** findings left out past MAX_FINDINGS (counted in `counts`) */
  omitted: number;
  /** null when every tool was linted; else how far the lint got before its time (LINT_TIME_MS) ran out */
  incomplete: { toolsLinted: number; toolsListed: number; reason: string } | null;
}

/**
 * Time one lint may take: it runs in the API process, synchronously, so a hostile list (thousands of tools with huge
 * schemas) holds the event loop for about this long at most, plus one check's watchdog.
 */
export const LINT_TIME_MS = 2_000;

/** Findings one report holds: a hostile list (thousands of tools, each with a hidden character) stays small. */
export const MAX_FINDINGS = 200;

/** The escaped text of a span, at most this long. */
export const SPAN_TEXT_MAX = 200;

/** Findings of one rule in one text (a description with hundreds of hidden characters): the first ones. */
export const MAX_FINDINGS_PER_TEXT = 10;

/** A report of findings: counted by severity, errors first, at most MAX_FINDINGS of them. */
export function toReport(
  protocolRevision: string | null,
  findings: LintFinding[],
  incomplete: LintReport['incomplete'] = null,
): LintReport {
  const counts = { error: 0, warning: 0 };
  for (const finding of findings) counts[finding.severity]++;
  const ordered = [
    ...findings.filter((f) => f.severity === 'error'),
    ...findings.filter((f) => f.severity !== 'error'),
  ];
  return {
    protocolRevision,
    counts,
    findings: ordered.slice(0, MAX_FINDINGS),
    omitted: Math.max(0, ordered.length - MAX_FINDINGS),
    incomplete,
  };
}
