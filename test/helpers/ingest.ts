/** Reported results as an SDK reporter or a CI script would send them. */
export function sampleResults(count: number, options: { prefix?: string; cases?: number; failEvery?: number } = {}) {
  const { prefix = 'ext', cases = 5, failEvery = 4 } = options;
  return Array.from({ length: count }, (_, i) => ({
    caseTitle: `case ${i % cases}`,
    query: `query ${i % cases}`,
    passed: i % failEvery !== failEvery - 1,
    durationMs: 100 + i,
    provider: 'openai',
    model: 'gpt-4.1-mini',
    expectedToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
    actualToolCalls: [{ toolName: 'echo', arguments: { message: 'hi' } }],
    tokens: { input: 10, output: 5, total: 15 },
    externalIterationId: `${prefix}-${i + 1}`,
  }));
}
