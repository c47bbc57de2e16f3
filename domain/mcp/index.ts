// The MCP layer's public surface: what api/ and the worker compose and call.
export { hostClientProfile } from './clientProfile.js';
export type { ClientProfile, ElicitationAnswer } from './clientProfile.js';
export type { ClientAnswers, ElicitationHook, ElicitationQuestion } from './clientRequests.js';
export { ConnectionPool } from './pool.js';
export { requireAllowedRoots } from './rootsFence.js';
export { newTraceId, type TraceContext } from './traceContext.js';
export type { IsolatedSession } from './isolatedSessions.js';
export { createMcpOperations } from './operations.js';
export type { Truncation } from './replyBudget.js';
export type {
  Bounded,
  CallOptions,
  ListOptions,
  McpDeps,
  McpOperations,
  ServerSnapshot,
  ValidateResult,
} from './operations.js';
export type { DoctorReport } from './doctor.js';
export type { OAuthRequirement, TokenImport } from './oauth.js';
export type { Page, PromptEntry, ResourceEntry, ToolEntry } from './primitives.js';
