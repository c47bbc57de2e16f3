import { z } from 'zod';
import { limits } from '../../domain/limits.js';

/*
 * What Runway's MCP client declares to a server and how it answers the server's requests (docs/MCP-CLIENT.md):
 * the elicitation answers of test cases and tools/call bodies, a saved server's client profile, a host's roots.
 * Objects are strict: a misspelt key would otherwise answer a form the way its writer did not mean.
 */

const fieldName = z.string().min(1).max(200);
const fieldValue = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(100)]);
const formContent = z
  .record(fieldName, fieldValue)
  .refine((content) => Object.keys(content).length <= 100, 'at most 100 fields')
  .meta({
    description: "field -> value (string, number, boolean or array of strings), checked against the server's form",
  });

export const elicitationAnswerSchema = z
  .union([
    z.strictObject({ action: z.literal('accept'), content: formContent }),
    z.strictObject({ action: z.enum(['decline', 'cancel']) }),
    z.strictObject({
      mode: z.literal('defaults'),
      content: formContent
        .optional()
        .meta({ description: 'fields to fill in or override; the rest take their defaults' }),
    }),
  ])
  .meta({
    id: 'ElicitationAnswer',
    description:
      'How Runway answers a server\'s form elicitation: `{ action: "accept", content }` (content must fit the form, else the server gets ' +
      'an error), `{ action: "decline" }`, `{ action: "cancel" }`, or `{ mode: "defaults", content? }`: accept the form pre-filled ' +
      "with each field's default (SEP-1034), cancelled when a required field has neither a default nor content. URL-mode requests are " +
      'always declined.',
  });

/** The name a 2026-07-28 server gives a question (its key in `inputRequests`). */
const questionName = z.string().min(1).max(200).optional().meta({
  description:
    "the question this answers, by the name its server gives it (a 2026-07-28 server's `inputRequests` key); left out: the next question no named answer matches, in order (a 2025-11-25 server's questions have no name)",
});

const scriptedAnswerSchema = z
  .union([
    z.strictObject({ question: questionName, action: z.literal('accept'), content: formContent }),
    z.strictObject({ question: questionName, action: z.enum(['decline', 'cancel']) }),
    z.strictObject({
      question: questionName,
      mode: z.literal('defaults'),
      content: formContent
        .optional()
        .meta({ description: 'fields to fill in or override; the rest take their defaults' }),
    }),
  ])
  .meta({
    id: 'ScriptedElicitationAnswer',
    description: 'one answer of an elicitation script: an ElicitationAnswer, with the `question` it answers or none',
  });

/**
 * How an eval case (or one of its turns) answers the questions servers ask in its iterations: one answer for every
 * question, as always, or a script (domain/evals/elicitationScript.ts).
 */
export const caseElicitationSchema = z
  .union([
    elicitationAnswerSchema,
    z
      .strictObject({
        answers: z
          .array(scriptedAnswerSchema)
          .min(1, 'a script has at least one answer')
          .max(limits.scriptedAnswers, `a script holds at most ${limits.scriptedAnswers} answers`),
      })
      .meta({
        id: 'ElicitationScript',
        description: `answers (1 to ${limits.scriptedAnswers}) given as "the user": a question is answered by the answer naming it (as often as it is asked), else by the next unnamed answer (each used once, in order); a question neither matches fails the iteration (UNSCRIPTED_QUESTION)`,
      }),
  ])
  .meta({
    id: 'CaseElicitation',
    description:
      'How elicitation questions are answered: one ElicitationAnswer for every question, or `{ answers: [{ question?, ...ElicitationAnswer }] }`, answered by question name or in order',
  });

export const clientRootSchema = z
  .strictObject({
    uri: z
      .string()
      .max(2000)
      .regex(/^file:\/\/\P{Cc}*$/u, 'a root is a file:// URI'),
    name: z.string().min(1).max(200).optional(),
  })
  .meta({ id: 'ClientRoot' });

export const clientRootsSchema = z.array(clientRootSchema).max(50);

/** A saved server's client profile, as the admin CLI sets it (each feature declared exactly when present). */
export const clientProfileSchema = z
  .strictObject({
    elicitation: z
      .strictObject({
        answer: elicitationAnswerSchema.optional().meta({ description: 'default: decline' }),
        url: z.boolean().optional().meta({ description: 'also declare URL mode (its requests are declined)' }),
      })
      .optional(),
    sampling: z
      .strictObject({})
      .optional()
      .meta({ description: "declared; server operations decline it (an eval run's model answers it in runs)" }),
    roots: clientRootsSchema.optional(),
  })
  .meta({ id: 'ClientProfile' });
