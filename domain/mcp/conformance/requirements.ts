import { parse } from 'yaml';
import { z } from 'zod';

/**
 * A revision's requirement set as the suite's package ships it (requirements/<revision>.yaml): the server scenarios
 * conformance to that revision requires (scored), and those run and reported but never scored, each with the
 * reason the file gives (extension, pending, added-after-release) and its note.
 */
export interface ServerRequirements {
  scored: string[];
  notScored: { scenario: string; reason: string; note: string | null }[];
}

const requirementFile = z.object({
  server: z.array(z.string().min(1)).default([]),
  not_scored: z
    .array(
      z.object({
        scenario: z.string().min(1),
        leg: z.string(),
        reason: z.string().min(1),
        note: z.string().optional(),
      }),
    )
    .default([]),
});

/** The server leg of a requirement file's text; throws when the file is not one (a suite the runner cannot read). */
export function parseServerRequirements(text: string): ServerRequirements {
  const file = requirementFile.parse(parse(text));
  const scored = [...new Set(file.server)];
  const notScored = file.not_scored
    .filter((entry) => entry.leg === 'server' && !scored.includes(entry.scenario))
    .map((entry) => ({ scenario: entry.scenario, reason: entry.reason, note: entry.note?.trim() || null }));
  return { scored, notScored };
}
