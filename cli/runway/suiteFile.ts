import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { CreateEvalRun } from '../../api/client.js';
import { createRunBody, createRunFields } from '../../api/schemas/evals.js';
import { unknownFields } from '../../api/unknownFields.js';
import { UsageError, type CliContext } from './context.js';
import { resolveServer } from './servers.js';

/**
 * A suite file is the body of `POST /eval-runs` (suiteName, tests, model, passCriteria, ...), checked with the
 * same schema the API validates with, plus one convenience: `servers` may name saved servers by name or id
 * instead of `serverIds`. As in the API, an unknown key is refused with a hint, never dropped: a misspelt
 * `expectedToolCalls` would otherwise run, and pass, a case without its expectations. Model keys do not belong in
 * a file kept in git: pass them with --model-key-env.
 */
const suiteFileSchema = createRunFields.extend({
  servers: z.array(z.string().min(1)).min(1).optional().meta({ description: 'saved server names or ids' }),
});

export interface SuiteFile {
  body: CreateEvalRun;
  /** for reports: the suite's name, or its id when the file reruns a suite by id */
  suiteName: string;
}

export async function readSuiteFile(ctx: CliContext, path: string, modelKeyEnv: string[]): Promise<SuiteFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the suite file ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  // Checked as written, before any server is looked up; the body sent is the file as written, less `servers`.
  const parsed = suiteFileSchema.safeParse(json);
  if (!parsed.success) {
    const unknown = unknownFields(parsed.error, suiteFileSchema);
    throw new UsageError(
      `${path}: ${
        unknown.length > 0
          ? unknown
              .slice(0, 10)
              .map((u) => u.message)
              .join('; ')
          : issues(parsed.error)
      }`,
    );
  }
  const { servers, ...rest } = json as { servers?: string[] } & Record<string, unknown>;
  const body: Record<string, unknown> = { ...rest };
  if (servers) {
    if (body.serverIds) throw new UsageError(`${path}: give either servers (names or ids) or serverIds, not both`);
    body.serverIds = await Promise.all(servers.map(async (ref) => (await resolveServer(ctx, ref)).id));
  }
  if (body.modelApiKeys)
    ctx.note('[runway] warning: the suite file contains modelApiKeys; prefer --model-key-env PROVIDER=ENV_VAR');
  const keys = modelKeysFromEnv(ctx.env, modelKeyEnv);
  if (Object.keys(keys).length > 0)
    body.modelApiKeys = { ...(body.modelApiKeys as Record<string, string> | undefined), ...keys };

  const checked = createRunBody.safeParse(body);
  if (!checked.success) throw new UsageError(`${path}: ${issues(checked.error)}`);
  return { body: body as CreateEvalRun, suiteName: checked.data.suiteName || checked.data.suiteId || 'eval suite' };
}

/** `openai=OPENAI_API_KEY` -> `{ openai: process.env.OPENAI_API_KEY }`; a missing variable is an error, not an empty key. */
function modelKeysFromEnv(env: NodeJS.ProcessEnv, pairs: string[]): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--model-key-env expects PROVIDER=ENV_VAR, got "${pair}"`);
    const variable = pair.slice(at + 1);
    const value = env[variable];
    if (!value) throw new UsageError(`--model-key-env ${pair}: the environment variable ${variable} is not set`);
    keys[pair.slice(0, at)] = value;
  }
  return keys;
}

const issues = (error: z.ZodError) =>
  error.issues
    .slice(0, 10)
    .map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`)
    .join('; ');
