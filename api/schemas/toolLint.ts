import { z } from 'zod';
import { LINT_RULES, MAX_FINDINGS } from '../../domain/mcp/lint/index.js';

/** Tool definition lint (domain/mcp/lint; docs/SERVER-CHECKS.md "Tool lint"): a Runway extension. */

export const lintFindingSchema = z
  .object({
    rule: z.enum(LINT_RULES),
    severity: z.enum(['warning', 'error']),
    tool: z.string().meta({ description: "the tool's name as listed" }),
    field: z.enum(['name', 'title', 'description', 'inputSchema', 'outputSchema']),
    message: z.string(),
    pointer: z.string().optional().meta({
      description:
        'JSON Pointer of the place inside the field (a schema keyword, a property description, `/annotations/title`); the span is in the string there',
    }),
    span: z
      .object({
        start: z.number().int().meta({ description: "UTF-16 offset into the field's text (JavaScript's and JSON's)" }),
        end: z.number().int(),
        text: z.string().meta({ description: 'the text there, invisible and control characters written as [U+200B]' }),
      })
      .optional(),
    tokens: z.number().int().optional().meta({ description: "description-long: the description's o200k_base tokens" }),
    servers: z
      .array(z.object({ serverId: z.string(), name: z.string() }))
      .optional()
      .meta({ description: 'name-shared-across-servers: the servers that list the tool' }),
  })
  .meta({ id: 'ToolLintFinding' });

export const lintReportSchema = z
  .object({
    protocolRevision: z.string().nullable(),
    counts: z.object({ error: z.number().int(), warning: z.number().int() }),
    findings: z.array(lintFindingSchema).meta({ description: `at most ${MAX_FINDINGS}, errors first` }),
    omitted: z.number().int().meta({ description: 'findings left out past the cap (counted in `counts`)' }),
    incomplete: z
      .object({ toolsLinted: z.number().int(), toolsListed: z.number().int(), reason: z.string() })
      .nullable()
      .meta({ description: 'null when every tool was linted; else how far the lint got before its time ran out' }),
  })
  .meta({ id: 'ToolLintReport' });

export const suiteToolLintSchema = z
  .object({
    suiteId: z.string(),
    servers: z.array(
      z.object({
        serverId: z.string(),
        name: z.string(),
        status: z.enum(['listed', 'failed', 'skipped']).meta({
          description:
            'listed: its tools were listed and linted; failed: they could not be listed (`error`); skipped: past the cap of servers linted',
        }),
        toolCount: z.number().int(),
        lint: lintReportSchema.nullable(),
        error: z.object({ code: z.string(), message: z.string() }).nullable(),
      }),
    ),
    findings: z
      .array(lintFindingSchema)
      .meta({ description: "rules across the suite's servers: each tool name two or more of them list" }),
  })
  .meta({ id: 'SuiteToolLint' });
