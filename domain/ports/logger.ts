import type { Logger as PinoLogger } from 'pino';

/** What the domain logs through: pino's logger, which the process builds (runtime/logger.ts) and hands in. */
export type Logger = PinoLogger;
