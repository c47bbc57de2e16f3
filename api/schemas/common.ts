import { z } from 'zod';
import { int4Query } from '../../domain/columnLimits.js';

/**
 * Ids are opaque strings of letters, digits, `_` and `-` (the `default` project alias included); bounded so a huge
 * path segment is a 400, not a slow query, and free of bytes Postgres cannot hold (NUL).
 */
const ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export const id = z.string().min(1).max(200).regex(ID_PATTERN, 'not a valid id');

/**
 * What a server reference that is not an id is: almost always the server's name (`everything (stdio)`), so the
 * refusal says so and where the ids are, instead of a bare "not a valid id".
 */
const notAServerId = (value: unknown, projectId = '{projectId}') =>
  `${JSON.stringify(value)} is not a server id (ids look like srv_...): it looks like a server's name; GET /projects/${projectId}/servers lists the project's servers with their ids`;

/** A server id in a body (`serverIds`), refused as a server's name when it is not an id. */
export const serverId = z
  .string()
  .min(1)
  .max(200)
  .regex(ID_PATTERN, { error: (issue) => notAServerId(issue.input) });

/**
 * The path of a server operation: a server's name in place of its id is refused naming the project's server list.
 * (Checked on the whole path, so that the hint names the project.)
 */
export const serverPathParams = z
  .object({ projectId: id, serverId: z.string().min(1).max(200) })
  .superRefine((params, ctx) => {
    if (ID_PATTERN.test(params.serverId)) return;
    const projectId = ID_PATTERN.test(params.projectId) ? params.projectId : undefined;
    ctx.addIssue({ code: 'custom', path: ['serverId'], message: notAServerId(params.serverId, projectId) });
  });

export const epochMs = z.number().meta({ description: 'epoch milliseconds' });

export const projectParams = z.object({ projectId: id });

export const pageQuery = z.strictObject({
  cursor: z.string().max(2000).optional(),
  limit: int4Query({ min: 1, max: 200 }).default(50),
});

/** `{ items, nextCursor? }`: nextCursor is omitted on the last page. */
export function collection<T extends z.ZodType>(item: T, name?: string) {
  const schema = z.object({ items: z.array(item), nextCursor: z.string().optional() });
  return name ? schema.meta({ id: name }) : schema;
}
