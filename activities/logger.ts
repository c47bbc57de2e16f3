import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths whose values are secrets; pino replaces them before a line is written. */
const redact = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'headers',
  '*.headers',
  'env',
  '*.env',
  'apiKey',
  '*.apiKey',
  'modelApiKeys',
  '*.modelApiKeys',
  'tokens',
  '*.tokens',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'clientSecret',
  '*.clientSecret',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, redact: { paths: redact, censor: '[redacted]' }, base: undefined }, destination ?? process.stdout);
}
