import { z } from 'zod';
import { int4Query } from '../../db/columnLimits.js';

/**
 * Ids are opaque strings of letters, digits, `_` and `-` (the `default` project alias included); bounded so a huge
 * path segment is a 400, not a slow query, and free of bytes Postgres cannot hold (NUL).
 */
export const id = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'not a valid id');

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
