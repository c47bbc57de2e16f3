import { expect } from 'vitest';
import type { Config } from '../../runtime/config.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { startScriptedModelServer } from '../fixtures/model/server.js';
import { apiClient } from './http.js';
import { everythingOverStdio, saveServer } from './mcpServers.js';
import { seedOrganization } from './seed.js';
import { startTestStack, type TestStackOptions } from './stack.js';

type Call = ReturnType<typeof apiClient>;

/** Polls GET /eval-runs/{id} until the run leaves `running` (or the predicate holds). */
export async function waitForRun(
  call: Call,
  projectId: string,
  runId: string,
  until: (run: any) => boolean = (r) => r.status !== 'running',
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await call('GET', `/projects/${projectId}/eval-runs/${runId}`);
    expect(reply.status).toBe(200);
    if (until(reply.body)) return reply.body;
    if (Date.now() > deadline)
      throw new Error(`run ${runId} still ${reply.body.status}: ${JSON.stringify(reply.body.progress)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every iteration of a run, walking the cursor. */
export async function allIterations(call: Call, projectId: string, runId: string, limit = 50): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const reply = await call(
      'GET',
      `/projects/${projectId}/eval-runs/${runId}/iterations?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(reply.status).toBe(200);
    items.push(...reply.body.items);
    cursor = reply.body.nextCursor;
  } while (cursor);
  return items;
}

/**
 * The usual eval-test world: a stack, the scripted model server behind the organization's `openai` provider
 * (runs use bare model ids with provider `openai` and modelApiKeys), and server-everything over stdio saved.
 */
export async function startEvalWorld(
  config: Partial<Record<keyof Config, string>> = {},
  options: Pick<TestStackOptions, 'traceExport'> = {},
) {
  const model = await startScriptedModelServer();
  const stack = await startTestStack({
    config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000', ...config },
    ...options,
  });
  const org = await seedOrganization(stack.sql);
  await setProviderKey(stack.sql, stack.box, {
    organizationId: org.organizationId,
    provider: 'openai',
    apiKey: 'org-key',
    baseUrl: model.url,
  });
  const serverId = await saveServer(stack.sql, stack.box, {
    projectId: org.projectId,
    name: 'everything',
    ...everythingOverStdio(),
  });
  return {
    stack,
    model,
    org,
    serverId,
    call: apiClient(stack.baseUrl, org.apiKey),
    async stop() {
      await stack.stop();
      await model.close();
    },
  };
}

export type EvalWorld = Awaited<ReturnType<typeof startEvalWorld>>;
