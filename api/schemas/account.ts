import { z } from 'zod';
import { epochMs } from './common.js';

export const accountSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    imageUrl: z.string().nullable(),
    profilePictureUrl: z.string().nullable().meta({
      description: "the account's picture, for display; Runway keeps one picture per account, so it is imageUrl",
    }),
    plan: z.string().nullable(),
    createdAt: epochMs,
    updatedAt: epochMs,
    organization: z
      .object({ id: z.string(), name: z.string() })
      .meta({ description: 'the organization the key is bound to' }),
  })
  .meta({ id: 'Account' });
