import { outputCheckProblem, type OutputCheck } from './outputCheck.js';

type Issue = { path: (string | number)[]; message: string };
type ExpectedCall = { toolName: string; arguments?: Record<string, unknown> };
/** What the rules read of a turn (the request's turn, api/schemas/evals.ts, has this shape). */
type Turn = {
  prompt: string;
  expectedToolCalls: ExpectedCall[];
  expectedOutput?: string | null;
  outputCheck?: OutputCheck | null;
};

/** What a case's query, expectations and turns must satisfy together (see caseTurns); [] when they do. */
export function caseShapeIssues(
  c: {
    title?: string | null;
    query?: string | null;
    expectedToolCalls?: ExpectedCall[] | null;
    expectedOutput?: string | null;
    outputCheck?: OutputCheck | null;
    turns?: Turn[] | null;
  },
  queryName = 'query',
): Issue[] {
  const issues: Issue[] = [];
  const check = (expected: string | null | undefined, outputCheck: typeof c.outputCheck, at: (string | number)[]) => {
    // "" (or only spaces) is contained in every answer, and equals every empty one: a check that cannot fail.
    if (typeof expected === 'string' && expected.trim() === '') {
      const named = c.title ? `case "${c.title}": ` : '';
      issues.push({
        path: [...at, 'expectedOutput'],
        message: `${named}an empty expectedOutput passes every answer: leave it out, or give what the answer must hold`,
      });
      return;
    }
    const problem = outputCheckProblem(expected, outputCheck);
    if (problem) issues.push({ path: [...at, problem.path], message: problem.message });
  };
  if (!c.turns) {
    check(c.expectedOutput, c.outputCheck, []);
    return issues;
  }
  c.turns.forEach((turn, i) => check(turn.expectedOutput, turn.outputCheck, ['turns', i]));
  if (c.query !== undefined && c.query !== null && c.query !== c.turns[0].prompt)
    issues.push({ path: [queryName], message: `with turns, ${queryName} is the first turn's prompt (or left out)` });
  if (
    c.expectedToolCalls &&
    c.expectedToolCalls.length > 0 &&
    JSON.stringify(c.expectedToolCalls) !== JSON.stringify(turnsExpectedToolCalls(c.turns))
  )
    issues.push({
      path: ['expectedToolCalls'],
      message: "with turns, each turn lists its expectedToolCalls (the case's, when given, are every turn's in order)",
    });
  for (const field of ['expectedOutput', 'outputCheck'] as const)
    if (c[field] !== undefined && c[field] !== null)
      issues.push({ path: [field], message: `with turns, each turn has its own ${field}` });
  return issues;
}

/** Every turn's expected calls, in order: what a multi-turn case stores (and shows) as its expectedToolCalls. */
export function turnsExpectedToolCalls(turns: Turn[]): ExpectedCall[] {
  return turns.flatMap((t) => t.expectedToolCalls);
}
