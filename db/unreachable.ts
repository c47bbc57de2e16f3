/**
 * Whether a database error says the database could not be reached (down, restarting, in crash recovery, the
 * connection cut), as opposed to a statement it refused. What waits for a database to come back (a batch's writes,
 * activities/databaseWait.ts) and what names an unreachable database (the operator CLI) ask here.
 */

/** Socket errors, and the `postgres` library's own codes for a connection it lost or could not open. */
export const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
]);

/**
 * SQLSTATE classes and codes of a server going away or not ready yet: 08 (connection exception), 57P01
 * (admin_shutdown), 57P02 (crash_shutdown: another backend crashed), 57P03 (cannot_connect_now: starting up or
 * recovering).
 */
const SERVER_GOING_AWAY = /^(08[0-9A-Z]{3}|57P0[123])$/;

export function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || SERVER_GOING_AWAY.test(code));
}
