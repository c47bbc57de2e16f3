import { pino, type Logger } from 'pino';

export type { Logger };

/** Field names whose values are secrets, wherever they appear in a logged object (up to three levels deep). */
const secretFields = [
  'authorization',
  'headers',
  'env',
  'apiKey',
  'modelApiKeys',
  'tokens',
  'access_token',
  'refresh_token',
  'clientSecret',
  'client_secret',
];

/** pino replaces these paths before a line is written; `*` matches any one key. */
export const redactedPaths = secretFields.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]);

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, redact: { paths: redactedPaths, censor: '[redacted]' }, base: undefined },
    destination ?? process.stdout,
  );
}
