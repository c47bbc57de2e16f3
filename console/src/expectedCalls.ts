/* Pure: no DOM, no imports (the unit tests read it in Node: test/unit/console-pure.test.ts). */

export type ExpectedCall = { toolName: string; arguments?: Record<string, unknown> };

/** Expected calls as the form writes them: one a line, the tool's name and optionally its arguments as JSON. */
export function formatExpectedCalls(calls: ExpectedCall[]): string {
  return calls
    .map((c) =>
      c.arguments && Object.keys(c.arguments).length > 0 ? `${c.toolName} ${JSON.stringify(c.arguments)}` : c.toolName,
    )
    .join('\n');
}

/** The lines back into expected calls; a line that is not `name` or `name {json}` throws, saying which. */
export function parseExpectedCalls(text: string): ExpectedCall[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line, i) => {
      const at = line.search(/\s/);
      if (at === -1) return { toolName: line };
      const toolName = line.slice(0, at);
      let args: unknown;
      try {
        args = JSON.parse(line.slice(at + 1));
      } catch {
        throw new Error(`Expected tool calls, line ${i + 1}: after the tool name, give its arguments as a JSON object`);
      }
      if (!args || typeof args !== 'object' || Array.isArray(args))
        throw new Error(`Expected tool calls, line ${i + 1}: the arguments must be a JSON object`);
      return { toolName, arguments: args as Record<string, unknown> };
    });
}
