import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Principal } from '../domain/principal.js';
import { fromZodError, type ErrorCode } from './errors.js';
import {
  IDEMPOTENT_REPLAYED_HEADER,
  REPLAYED_HEADERS,
  idempotencyKeyOf,
  requestFingerprint,
  type Idempotency,
  type IdempotentReply,
} from './idempotency.js';
import { refuseUnfitJson } from './jsonLimits.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type AnySchema = z.ZodType;
type Empty = z.ZodObject<Record<never, never>>;

export interface RouteContext<P extends AnySchema, Q extends AnySchema, B extends AnySchema> {
  params: z.output<P>;
  query: z.output<Q>;
  body: z.output<B>;
  principal: Principal;
  req: Request;
  res: Response;
}

/**
 * One route: its zod schemas validate the request, type the handler and its reply, and generate the OpenAPI
 * document, so the three can never disagree. The handler must return what `response` takes (`z.input`): a field
 * the reply carries and the schema lacks, or one of the wrong type, is a compile error (for object literals; the
 * reply check, replyCheck.ts, catches the rest at run time).
 */
export interface RouteSpec<
  P extends AnySchema = AnySchema,
  Q extends AnySchema = AnySchema,
  B extends AnySchema = AnySchema,
  R extends AnySchema = AnySchema,
> {
  method: Method;
  /** Express path below /api/v1, e.g. `/projects/:projectId/servers` */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** the OpenAPI operationId, when the one derived from the method and path (operationId in openapi.ts) is taken */
  operationId?: string;
  /** success status (default 200) */
  status?: number;
  /** the success reply (status `status`); every JSON reply is checked against it when REPLY_VALIDATION asks */
  response: R;
  /**
   * other success replies the route may give instead (e.g. POST /eval-runs with `dryRun`: 200 and an estimate), each
   * with its own status and schema, in the OpenAPI document and the reply check; the handler returns one as an
   * AlternateReply (alternateReply).
   */
  alternates?: AlternateResponse[];
  /** error codes this route can answer besides the ones every route can (401, 429, 500) */
  errors: ErrorCode[];
  /** false for routes without the bearer key (e.g. single-use upload URLs) */
  auth?: boolean;
  /** the handler answers with res itself (raw bodies, streams) */
  raw?: boolean;
  /** the success reply's media type, when not JSON (a raw route's, e.g. `text/event-stream`) */
  responseType?: string;
  /** largest JSON body in bytes, when not the default 1 MiB (eval ingest takes 6 MiB) */
  bodyLimit?: number;
  /**
   * the route takes an `Idempotency-Key` header (api/idempotency.ts): a retry with the same key and request gets the
   * first reply, nothing is done twice. For routes that create something (a POST); not with `raw` or `auth: false`.
   */
  idempotent?: boolean;
  handler: (ctx: RouteContext<P, Q, B>) => Promise<z.input<R> | AlternateReply>;
}

/** A success reply a route declares besides its main one. */
export interface AlternateResponse<S extends AnySchema = AnySchema> {
  status: number;
  description: string;
  response: S;
}

/** A handler's reply with one of its route's alternate statuses (built by alternateReply, so its body is typed). */
export class AlternateReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** The reply `body` with the alternate's status; the type check holds the body to the alternate's schema. */
export const alternateReply = <S extends AnySchema>(
  alternate: AlternateResponse<S>,
  body: z.input<S>,
): AlternateReply => new AlternateReply(alternate.status, body);

/**
 * What a route that declares no body (a POST, PATCH or DELETE) or no query takes: nothing. A field sent there is
 * refused like any unknown field (the strict-body rule, unknownFields.ts), not ignored.
 */
export const noBody = z.strictObject({}).meta({ description: 'no fields: send `{}` or no body' });
export const noQuery = z.strictObject({});

export function defineRoute<
  P extends AnySchema = Empty,
  Q extends AnySchema = Empty,
  B extends AnySchema = Empty,
  R extends AnySchema = AnySchema,
>(spec: RouteSpec<P, Q, B, R>): RouteSpec {
  return spec as unknown as RouteSpec;
}

function parse(schema: AnySchema | undefined, value: unknown, where: 'body' | 'query' | 'path') {
  if (!schema) return {};
  // The body was checked as it was read (body.ts); a query or path can carry a NUL too (`%00`).
  if (where !== 'body') refuseUnfitJson(value, where);
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw fromZodError(result.error, where, schema);
  return result.data;
}

/** What is done with a reply before it is sent: nothing, or a check against the route's response schema (replyCheck.ts). */
export type ReplyCheck = (route: RouteSpec, status: number, reply: unknown) => void;

export function toHandler(spec: RouteSpec, checkReply?: ReplyCheck, idempotency?: Idempotency): RequestHandler {
  // A GET has no body to check (none is read); every other route reads a JSON object, its own schema's or `{}`.
  const bodySchema = spec.body ?? (spec.method === 'get' ? undefined : noBody);
  const keyed = spec.idempotent && !spec.raw && spec.auth !== false ? idempotency : undefined;
  const route = `${spec.method.toUpperCase()} ${spec.path}`;
  return async (req, res) => {
    const idempotencyKey = keyed && idempotencyKeyOf(req);
    const params = parse(spec.params, req.params, 'path');
    // Unknown query parameters are refused as body fields are: a misspelt one (`limt`, `projectID`) would
    // otherwise answer as if it were absent (the default page, every project's sessions). Clients send only the
    // documented ones (the real product's client does), and no cache-buster is needed: replies carry an ETag and
    // no freshness lifetime, so caches revalidate. A route whose query is a capability URL declares it open.
    const query = parse(spec.query ?? noQuery, req.query, 'query');
    // Path parameters win over same-named body fields.
    const body = parse(
      bodySchema,
      spec.body ? { ...(req.body as object), ...pathOverrides(spec, params) } : req.body,
      'body',
    );
    const principal = res.locals.principal as Principal;
    const work = async () => {
      const result = await spec.handler({
        params,
        query,
        body,
        principal,
        req,
        res,
      } as RouteContext<AnySchema, AnySchema, AnySchema>);
      const status = result instanceof AlternateReply ? result.status : (spec.status ?? 200);
      const reply = result instanceof AlternateReply ? result.body : result;
      if (!spec.raw) checkReply?.(spec, status, reply);
      return { status, body: reply, headers: repeatedHeaders(res) };
    };
    const reply: IdempotentReply =
      keyed && idempotencyKey
        ? await keyed.run(
            { organizationId: principal.organizationId, apiKeyId: principal.keyId, route, key: idempotencyKey },
            requestFingerprint({ params: req.params, query: req.query, body: req.body }),
            work,
          )
        : { ...(await work()), replayed: false };
    if (spec.raw) return;
    if (reply.text === undefined) return void res.status(reply.status).json(reply.body);
    res.set({ ...reply.headers, [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
    // The /sdk/v1 alias's clients read only an `error` string from a failed reply (errors.ts errorHandler).
    if (reply.status >= 400 && res.locals.errorAsString) {
      const envelope = JSON.parse(reply.text) as { message?: unknown };
      return void res.status(reply.status).json({ ...envelope, error: envelope.message });
    }
    res.status(reply.status).type('application/json').send(reply.text);
  };
}

/** The headers a handler set that a replay of its reply repeats (api/idempotency.ts REPLAYED_HEADERS). */
function repeatedHeaders(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = res.get(name);
    if (value) headers[name] = value;
  }
  return headers;
}

function pathOverrides(spec: RouteSpec, params: unknown): Record<string, unknown> {
  const bodyShape = spec.body instanceof z.ZodObject ? spec.body.shape : {};
  return Object.fromEntries(Object.entries(params as Record<string, unknown>).filter(([k]) => k in bodyShape));
}
