// The workflow bundle's entry point: every workflow the worker registers.
export { healthCheck } from './healthCheck.js';
export { evalRun } from './evalRun.js';
export { scheduledSuiteRun } from './scheduledSuiteRun.js';
export { conformanceCheck } from './conformanceCheck.js';
export { retention } from './retention.js';
export { webhookDelivery } from './webhookDelivery.js';
