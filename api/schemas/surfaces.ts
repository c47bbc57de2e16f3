import { z } from 'zod';
import { clampedLimit } from './pageLimit.js';
import { epochMs, id, serverId } from './common.js';

/**
 * Tool surfaces (Runway extension): the tools a server showed (names, descriptions, schemas, annotations) normalized
 * and hashed (domain/mcp/surface.ts), recorded by every eval run's listings and every export; the diff between two;
 * and the drift a comparison of two runs finds.
 */

const hash = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'not a surface hash (64 lowercase hex digits)')
  .meta({ description: "a surface's hash: sha256 of its canonical JSON, 64 lowercase hex digits" });

export const surfacesParams = z.object({ projectId: id, serverId });
export const surfaceParams = z.object({ projectId: id, serverId, hash });

export const surfacesQuery = z.strictObject({
  limit: clampedLimit({ max: 100, fallback: 20 }),
  cursor: z.string().max(4000).optional().meta({ description: 'nextCursor of the previous page, unchanged' }),
});

export const surfaceDiffQuery = z.strictObject({
  from: hash.meta({ description: 'the earlier surface' }),
  to: hash.meta({ description: 'the later surface' }),
});

const truncationSchema = z
  .object({
    reason: z.literal('SURFACE_TOO_LARGE'),
    omittedTools: z.number().meta({ description: 'tools past the cap (1000) or the byte budget (1 MB), left out' }),
    cutTools: z.array(z.string()).meta({ description: 'tools larger than 64 KB, kept with their fields cut' }),
    listCut: z
      .boolean()
      .optional()
      .meta({ description: "the export's tool list itself stopped at the reply budget: tools past it were not seen" }),
  })
  .meta({ id: 'ToolSurfaceTruncation' });

const surfaceToolSchema = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    inputSchema: z.unknown().optional(),
    outputSchema: z.unknown().optional(),
    annotations: z.unknown().optional(),
  })
  .meta({ id: 'ToolSurfaceTool' });

export const surfaceSummarySchema = z
  .object({
    serverId: z.string(),
    hash,
    toolCount: z.number(),
    truncated: z.boolean().meta({ description: 'the server showed more than a surface keeps (see the surface)' }),
    firstSeenAt: epochMs,
    lastSeenAt: epochMs,
    exportCount: z.number().meta({ description: 'exports that saw it' }),
    runCount: z.number().meta({ description: 'eval runs whose tool listings saw it' }),
    recentRunIds: z.array(z.string()).meta({ description: 'up to 5 of those runs, the latest first' }),
  })
  .meta({ id: 'ToolSurfaceSummary' });

export const surfaceSchema = surfaceSummarySchema
  .extend({
    tools: z.array(surfaceToolSchema).meta({ description: 'sorted by name, keys in canonical order' }),
    truncation: truncationSchema.optional(),
  })
  .meta({ id: 'ToolSurface' });

const fieldChangeSchema = z.object({
  field: z.enum(['title', 'description', 'inputSchema', 'outputSchema', 'annotations']),
  path: z
    .string()
    .optional()
    .meta({ description: 'inside a schema or the annotations: the JSON pointer that changed' }),
  before: z.unknown().optional().meta({ description: 'absent: it was not there; cut to 2 KB of JSON' }),
  after: z.unknown().optional().meta({ description: 'absent: it is gone; cut to 2 KB of JSON' }),
});

export const surfaceChangesSchema = z
  .object({
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(
      z.object({
        name: z.string(),
        fields: z.array(fieldChangeSchema),
        omittedChanges: z.number().optional().meta({ description: 'changes past 100 for this tool, left out' }),
      }),
    ),
  })
  .meta({ id: 'ToolSurfaceChanges' });

export const surfaceDiffSchema = z
  .object({ serverId: z.string(), from: hash, to: hash, diff: surfaceChangesSchema })
  .meta({ id: 'ToolSurfaceDiff' });

/** On a run's reply: the surfaces each server showed its listings. */
export const runToolSurfacesSchema = z
  .array(
    z.object({
      serverId: z.string(),
      serverName: z.string(),
      hashes: z.array(z.string()).meta({ description: 'the surfaces it showed, first seen first' }),
      changedDuringRun: z.boolean().meta({
        description: 'it showed more than one surface during the run (different tools to different sessions)',
      }),
    }),
  )
  .meta({
    id: 'RunToolSurfaces',
    description: "Runway extension: the tool surfaces each of the run's servers showed (GET .../servers/{s}/surfaces)",
  });

/** On a comparison: the surfaces the two runs saw, and what changed between them. */
export const compareDriftSchema = z
  .object({
    changed: z.boolean().meta({ description: 'a server showed the candidate another surface than the base' }),
    servers: z.array(
      z.object({
        serverId: z.string(),
        serverName: z.string(),
        from: z.string().nullable().meta({ description: "the base run's surface (its last, if several)" }),
        to: z.string().nullable().meta({ description: "the candidate run's surface (its last, if several)" }),
        diff: surfaceChangesSchema,
        summary: z
          .array(z.string())
          .meta({ description: 'one line per change: "the `search` tool\'s description changed"' }),
      }),
    ),
  })
  .meta({
    id: 'CompareDrift',
    description:
      'Runway extension: the servers whose tool surface differs between the runs; absent when neither run recorded one',
  });
