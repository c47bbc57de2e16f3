/** The Tasks extension of MCP 2026-07-28: a tool may answer with a task, which the client polls until it ends. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
