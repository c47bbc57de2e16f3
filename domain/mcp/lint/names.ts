import type { LintSpan } from './findings.js';
import { spanOf } from './text.js';

/**
 * The spec's tool naming guidance (MCP 2025-11-25 and 2026-07-28, server/tools, "Tool Names"): names SHOULD be 1 to
 * 128 characters, case-sensitive, of ASCII letters, digits, underscore, hyphen and dot only (no spaces, commas or
 * other special characters), and unique within a server.
 */
export const NAME_MAX = 128;
const ALLOWED = /^[A-Za-z0-9_.-]$/;

/** Where the spec says it, for the messages. */
export function namingGuidance(protocolRevision: string | null): string {
  const revision = protocolRevision === '2026-07-28' ? '2026-07-28' : '2025-11-25';
  return `MCP ${revision}, server/tools "Tool Names"`;
}

export interface NameProblem {
  message: string;
  span?: LintSpan;
}

/** What in `name` is outside the guidance: its length, and each run of characters it does not allow. */
export function nameProblems(name: string, protocolRevision: string | null): NameProblem[] {
  const cite = namingGuidance(protocolRevision);
  if (name.length === 0)
    return [{ message: `the tool has an empty name: names SHOULD be 1 to ${NAME_MAX} characters (${cite})` }];
  const problems: NameProblem[] = [];
  if (name.length > NAME_MAX) {
    problems.push({
      message: `the name is ${name.length} characters long: names SHOULD be 1 to ${NAME_MAX} characters (${cite})`,
      span: spanOf(name, NAME_MAX, name.length),
    });
  }
  let start = -1;
  const runs: [number, number][] = [];
  for (let i = 0; i <= name.length; i++) {
    const bad = i < name.length && !ALLOWED.test(name[i]);
    if (bad && start < 0) start = i;
    if (!bad && start >= 0) {
      runs.push([start, i]);
      start = -1;
    }
  }
  for (const [from, to] of runs.slice(0, 5)) {
    const span = spanOf(name, from, to);
    problems.push({
      message: `the name has ${describeRun(name.slice(from, to))} ${JSON.stringify(span.text)} at ${from}: tool names SHOULD only use A-Z, a-z, 0-9, underscore (_), hyphen (-) and dot (.), no spaces, commas or other special characters (${cite})`,
      span,
    });
  }
  return problems;
}

function describeRun(text: string): string {
  if (/^ +$/.test(text)) return text.length === 1 ? 'a space' : 'spaces';
  return text.length === 1 ? 'the character' : 'the characters';
}
