import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { startOAuthServer, type OAuthFixture } from '../fixtures/mcp/oauth.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { waitForRun } from '../helpers/evals.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { everythingOverStdio, saveServer, startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * After a full run with per-run model keys, imported OAuth tokens, saved headers and env, and a host's header values,
 * none of the secret values appears in the run's Temporal history, the logs, any API reply, or any plain database column.
 */
describe('secrets stay secret', () => {
  let stack: TestStack;
  let model: ScriptedModelServer;
  let oauth: OAuthFixture;
  let everythingHttp: RunningServer;
  let org: SeededOrganization;
  const replies: ApiReply[] = [];
  const secrets: Record<string, string> = {
    runModelKey: 'sk-run-model-key-SECRET-31337',
    orgProviderKey: 'org-provider-key-SECRET-4242',
    savedHeader: 'header-value-SECRET-2718',
    savedEnv: 'env-value-SECRET-1618',
    hostHeader: 'host-header-SECRET-1414',
  };

  beforeAll(async () => {
    [stack, model, oauth, everythingHttp] = await Promise.all([
      startTestStack({ config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startScriptedModelServer(),
      startOAuthServer(),
      startEverythingOverHttp('streamableHttp'),
    ]);
    org = await seedOrganization(stack.sql);
    secrets.apiKey = org.apiKey;
    secrets.clientSecret = oauth.clientSecret;
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([model?.close(), oauth?.close(), everythingHttp?.stop()]);
  });

  it('a full run leaves no secret in history, logs, replies or plain columns', async () => {
    const recorded = apiClient(stack.baseUrl, org.apiKey);
    const call: typeof recorded = async (...args) => {
      const reply = await recorded(...args);
      replies.push(reply);
      return reply;
    };
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: secrets.orgProviderKey,
      baseUrl: model.url,
    });
    const stdioId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'local',
      ...everythingOverStdio(),
      env: { SECRET_TOKEN: secrets.savedEnv },
    });
    const httpId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'remote',
      transportType: 'http',
      url: everythingHttp.url,
      headers: { 'x-api-key': secrets.savedHeader },
    });
    const oauthId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'protected',
      transportType: 'http',
      url: oauth.url,
      useOAuth: true,
      oauthClientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
    });
    const tokens = oauth.issueTokens('alice');
    secrets.accessToken = tokens.access_token;
    secrets.refreshToken = tokens.refresh_token;

    const imported = await call('POST', `/projects/${org.projectId}/servers/${oauthId}/oauth/import-tokens`, {
      serverUrl: oauth.url,
      tokens,
      clientInformation: { clientId: oauth.clientId, clientSecret: oauth.clientSecret },
      authorizationServerUrl: oauth.issuer,
    });
    expect(imported.status).toBe(200);
    for (const serverId of [stdioId, httpId]) {
      expect(
        (
          await call('POST', `/projects/${org.projectId}/servers/${serverId}/tools/call`, {
            toolName: 'echo',
            parameters: { message: 'hi' },
          })
        ).status,
      ).toBe(200);
      expect((await call('POST', `/projects/${org.projectId}/servers/${serverId}/doctor`, {})).status).toBe(200);
    }
    const whoami = await call('POST', `/projects/${org.projectId}/servers/${oauthId}/tools/call`, {
      toolName: 'whoami',
    });
    expect(JSON.stringify(whoami.body.content)).toContain('alice');
    expect((await call('POST', `/projects/${org.projectId}/servers/${oauthId}/check-oauth`, {})).status).toBe(200);
    const hostConfig = templateConfig('claude');
    hostConfig.connectionDefaults.headers = {
      ...hostConfig.connectionDefaults.headers,
      authorization: `Bearer ${secrets.hostHeader}`,
    };
    const host = await call('POST', `/projects/${org.projectId}/hosts`, {
      name: 'claude with a key',
      config: hostConfig,
    });
    expect(host.status).toBe(201);
    expect(host.body.config.connectionDefaults.headers.authorization).toBe('[redacted]');
    for (const path of [
      '/me',
      '/projects',
      `/projects/${org.projectId}/servers`,
      `/projects/${org.projectId}/hosts`,
      `/projects/${org.projectId}/hosts/${host.body.id}`,
    ]) {
      expect((await call('GET', path)).status).toBe(200);
    }

    // The run's model calls the OAuth-protected tool through the worker, with the run's own model key.
    model.setScript('leaky', [{ toolCalls: [{ name: 'whoami', arguments: {} }] }, { text: 'done' }]);
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Secrets',
      serverIds: [oauthId],
      modelApiKeys: { openai: secrets.runModelKey },
      tests: [
        {
          title: 'who',
          query: 'who am i',
          model: 'leaky',
          provider: 'openai',
          runs: 2,
          expectedToolCalls: [{ toolName: 'whoami' }],
        },
      ],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', result: 'passed' });
    const iterations = await call('GET', `/projects/${org.projectId}/eval-runs/${run.id}/iterations`);
    for (const iteration of iterations.body.items)
      await call('GET', `/projects/${org.projectId}/eval-runs/${run.id}/iterations/${iteration.id}/trace`);
    expect(new Set(model.calls('leaky').map((c) => c.apiKey))).toEqual(new Set([secrets.runModelKey]));

    const history = JSON.stringify(await stack.temporal.workflow.getHandle(`eval-run:${run.id}`).fetchHistory());
    const logs = stack.logs.join('');
    const plainColumns = await plainDatabaseText(stack);
    const places: Record<string, string> = {
      history,
      logs,
      replies: JSON.stringify(replies.map((r) => r.body)),
      database: plainColumns,
    };
    const found = Object.entries(places).flatMap(([place, text]) =>
      Object.entries(secrets)
        .filter(([, value]) => text.includes(value))
        .map(([name]) => `${name} in ${place}`),
    );
    expect(found).toEqual([]);
    expect(logs.length).toBeGreaterThan(1000);

    mkdirSync('test-results/reliability', { recursive: true });
    writeFileSync(
      'test-results/reliability/secrets.json',
      JSON.stringify(
        {
          secrets: Object.keys(secrets),
          places: Object.fromEntries(Object.entries(places).map(([k, v]) => [k, v.length])),
          replies: replies.length,
          found,
        },
        null,
        2,
      ),
    );
  });
});

/** Every table's rows as JSON, without the encrypted columns (and the key hashes): what a database reader sees. */
async function plainDatabaseText(stack: TestStack): Promise<string> {
  const columns = await stack.sql<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name NOT LIKE '%\\_enc' AND column_name <> 'key_hash'`;
  const byTable = new Map<string, string[]>();
  for (const c of columns) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  const parts: string[] = [];
  for (const [table, cols] of byTable) {
    const rows = await stack.sql.unsafe(`SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${table}"`);
    parts.push(JSON.stringify(rows));
  }
  return parts.join('\n');
}
