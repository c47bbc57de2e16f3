import type { z } from 'zod';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';
import { ApiError } from './errors.js';
import type { ReplyCheck, RouteSpec } from './route.js';

/** REPLY_VALIDATION: whether a route's reply is held to its response schema before it is sent. */
export type ReplyValidation = Config['REPLY_VALIDATION'];

export interface ReplyIssue {
  code: string;
  path: PropertyKey[];
  message: string;
}

/**
 * What is wrong with a reply as the client receives it (its JSON text, parsed back) against the route's response
 * schema: zod's issues, plus every key of a closed object that the schema does not describe (zod drops those
 * silently, but a client reading the document would never learn of them, which is what the check is for).
 */
export function replyIssues(schema: z.ZodType, reply: unknown): ReplyIssue[] {
  const sent: unknown = reply === undefined ? undefined : JSON.parse(JSON.stringify(reply));
  const parsed = schema.safeParse(sent);
  if (!parsed.success) return parsed.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));
  const issues: ReplyIssue[] = [];
  undescribedKeys(sent, parsed.data, [], issues);
  return issues;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys the parse dropped: an open object (looseObject, catchall, record) keeps them and is not reported. */
function undescribedKeys(sent: unknown, kept: unknown, path: PropertyKey[], issues: ReplyIssue[]): void {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    sent.forEach((item, i) => undescribedKeys(item, kept[i], [...path, i], issues));
    return;
  }
  if (!isObject(sent) || !isObject(kept)) return;
  // An own `__proto__` key (stored JSON is returned as given, e.g. a host config) cannot survive a zod parse, whose
  // output assigns keys (setting the prototype instead), so it is not checked here.
  const keys = Object.keys(sent).filter((key) => key !== '__proto__');
  const dropped = keys.filter((key) => !Object.hasOwn(kept, key));
  if (dropped.length > 0)
    issues.push({ code: 'unrecognized_keys', path, message: `not in the response schema: ${dropped.join(', ')}` });
  for (const key of keys) if (Object.hasOwn(kept, key)) undescribedKeys(sent[key], kept[key], [...path, key], issues);
}

/**
 * The reply check of REPLY_VALIDATION: `off` sends replies as they are (production default: no cost), `log` logs a
 * mismatch and sends the reply anyway, `strict` (the test stack) answers 500 instead, so every reply a test sees
 * is one its route's schema, and so the OpenAPI document, describes.
 */
export function replyCheck(mode: ReplyValidation, log: Logger): ReplyCheck | undefined {
  if (mode === 'off') return undefined;
  return (route: RouteSpec, status: number, reply: unknown) => {
    const schema =
      status === (route.status ?? 200) ? route.response : route.alternates?.find((a) => a.status === status)?.response;
    const issues = schema
      ? replyIssues(schema, reply)
      : [{ code: 'undeclared_status', path: [], message: `status ${status} is not a declared success reply` }];
    if (issues.length === 0) return;
    const where = `${route.method.toUpperCase()} ${route.path}`;
    const shown = issues.slice(0, 20).map((i) => ({ ...i, path: i.path.map(String).join('.') }));
    if (mode === 'log') {
      log.warn({ route: where, status, issues: shown }, 'reply does not match its response schema');
      return;
    }
    log.error({ route: where, status, issues: shown }, 'reply does not match its response schema');
    throw new ApiError('INTERNAL_ERROR', `the reply of ${where} does not match its response schema`, {
      reason: 'REPLY_SCHEMA_MISMATCH',
      route: where,
      issues: shown,
    });
  };
}
