import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../runtime/logger.js';
import { createMetrics, instrumentMcp, serveMetrics, type Metrics } from '../../runtime/metrics.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { composeActivities, createRunwayWorker } from '../../worker/createWorker.js';
import { startScriptedModelServer, type ScriptedModelServer } from '../fixtures/model/server.js';
import { startOAuthServer, type OAuthFixture } from '../fixtures/mcp/oauth.js';
import { waitForRun } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer, startEverythingOverHttp, type RunningServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, as a scraper reads it. */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

async function scrape(url: string, token?: string): Promise<Sample[]> {
  const reply = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(reply.status).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await reply.text());
}

describe('Prometheus metrics', () => {
  let stack: TestStack;
  let model: ScriptedModelServer;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  // The worker, composed here as worker/main.ts composes it, with its own registry and /metrics listener.
  let workerMetrics: Metrics;
  let workerMetricsServer: Server;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection } | undefined;

  beforeAll(async () => {
    model = await startScriptedModelServer();
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: model.url,
    });
    serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything',
      ...everythingOverStdio(),
    });
    workerMetrics = createMetrics();
    workerMetricsServer = await serveMetrics(workerMetrics, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    if (worker) {
      worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    }
    workerMetricsServer?.close();
    await stack?.stop();
    await model?.close();
  });

  const apiMetrics = () => scrape(`${stack.origin}/metrics`);
  const workerMetricsUrl = () => `http://127.0.0.1:${(workerMetricsServer.address() as { port: number }).port}/metrics`;

  it('HTTP latency by route pattern and status, MCP call latency by server, on the API', async () => {
    const reply = await call('POST', `/projects/${org.projectId}/servers/${serverId}/tools/call`, {
      toolName: 'echo',
      parameters: { message: 'hi' },
    });
    expect(reply.status).toBe(200);
    expect((await call('GET', '/no/such/route')).status).toBe(404);
    expect((await apiClient(stack.baseUrl)('GET', `/projects/${org.projectId}/servers`)).status).toBe(401);

    const samples = await apiMetrics();
    const toolsCall = '/api/v1/projects/:projectId/servers/:serverId/tools/call';
    expect(
      value(samples, 'runway_http_request_duration_seconds_count', { method: 'POST', route: toolsCall, status: '200' }),
    ).toBe(1);
    expect(
      value(samples, 'runway_http_request_duration_seconds_bucket', {
        method: 'POST',
        route: toolsCall,
        status: '200',
        le: '+Inf',
      }),
    ).toBe(1);
    expect(value(samples, 'runway_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBe(1);
    // Refused before routing, still labelled with the route it asked for; never with the raw path and its ids.
    expect(
      value(samples, 'runway_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v1/projects/:projectId/servers',
        status: '401',
      }),
    ).toBe(1);
    expect(samples.some((s) => s.labels.route?.includes(org.projectId))).toBe(false);
    expect(
      value(samples, 'runway_mcp_call_duration_seconds_count', {
        server_id: serverId,
        transport: 'stdio',
        operation: 'callTool',
        outcome: 'ok',
      }),
    ).toBe(1);
  });

  it('active runs from Postgres at scrape time; iterations by result and MCP latency from the worker', async () => {
    model.setScript('metrics-model', {
      byQuery: {
        'echo hello': [{ toolCalls: [{ name: 'echo', arguments: { message: 'hello' } }] }, { text: 'ok' }],
        'say nothing': [{ text: 'nothing' }],
      },
    });
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Metrics',
      serverIds: [serverId],
      modelApiKeys: { openai: 'run-key' },
      tests: [
        {
          title: 'passes',
          query: 'echo hello',
          model: 'metrics-model',
          provider: 'openai',
          runs: 2,
          expectedToolCalls: [{ toolName: 'echo' }],
        },
        {
          title: 'fails',
          query: 'say nothing',
          model: 'metrics-model',
          provider: 'openai',
          runs: 1,
          expectedToolCalls: [{ toolName: 'echo' }],
        },
      ],
    });
    expect(created.status).toBe(202);
    // No worker yet: the run waits, and the gauge says so.
    expect(value(await apiMetrics(), 'runway_eval_runs_active', { source: 'api' })).toBe(1);

    const connection = await NativeConnection.connect({ address: stack.config.TEMPORAL_ADDRESS });
    const w = await createRunwayWorker({
      connection,
      namespace: stack.config.TEMPORAL_NAMESPACE,
      taskQueue: stack.taskQueue,
      activities: composeActivities({
        sql: stack.sql,
        box: stack.box,
        catalog: stack.services.catalog,
        config: stack.config,
        temporal: stack.temporal,
        log: createLogger('silent'),
        mcp: instrumentMcp(stack.mcp, workerMetrics),
        metrics: workerMetrics,
      }),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    worker = { worker: w, running: w.run(), connection };
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run).toMatchObject({ status: 'completed', summary: { passed: 2, failed: 1 } });

    expect(value(await apiMetrics(), 'runway_eval_runs_active', { source: 'api' })).toBe(0);
    const samples = await scrape(workerMetricsUrl());
    expect(value(samples, 'runway_eval_iterations_total', { result: 'passed' })).toBe(2);
    expect(value(samples, 'runway_eval_iterations_total', { result: 'failed' })).toBe(1);
    expect(
      value(samples, 'runway_mcp_call_duration_seconds_count', {
        server_id: serverId,
        operation: 'listAllTools',
        outcome: 'ok',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(samples, 'runway_mcp_call_duration_seconds_count', {
        server_id: serverId,
        operation: 'callTool',
        outcome: 'ok',
      }),
    ).toBe(2);
  });

  it('rate-limit rejections, and METRICS_TOKEN protects /metrics', async () => {
    const limited = await startTestStack({
      worker: false,
      database: stack.db,
      config: { RATE_LIMIT_BURST: '1', RATE_LIMIT_PER_MINUTE: '1', METRICS_TOKEN: 'scrape-secret' },
    });
    try {
      const other = await seedOrganization(stack.sql);
      const limitedCall = apiClient(limited.baseUrl, other.apiKey);
      expect((await limitedCall('GET', '/me')).status).toBe(200);
      const refused = await limitedCall('GET', '/me');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      const anonymous = await fetch(`${limited.origin}/metrics`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.text()).not.toContain('runway_');
      expect((await fetch(`${limited.origin}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(
        401,
      );
      const samples = await scrape(`${limited.origin}/metrics`, 'scrape-secret');
      expect(value(samples, 'runway_rate_limit_rejections_total')).toBe(1);
      expect(value(samples, 'runway_http_request_duration_seconds_count', { route: '/api/v1/me', status: '429' })).toBe(
        1,
      );
    } finally {
      await limited.stop();
    }
  });
});

describe('structured logs', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let oauth: OAuthFixture;
  let http: RunningServer;
  let model: ScriptedModelServer;
  const secrets: string[] = [];

  beforeAll(async () => {
    // Every level, so that nothing logged anywhere escapes the check.
    [stack, oauth, http, model] = await Promise.all([
      startTestStack({
        worker: true,
        config: { LOG_LEVEL: 'trace', RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
      }),
      startOAuthServer(),
      startEverythingOverHttp('streamableHttp'),
      startScriptedModelServer(),
    ]);
    org = await seedOrganization(stack.sql);
    // The organization's provider points at the scripted model server; runs bring their own key.
    await setProviderKey(stack.sql, stack.box, {
      organizationId: org.organizationId,
      provider: 'openai',
      apiKey: 'org-key',
      baseUrl: model.url,
    });
    call = apiClient(stack.baseUrl, org.apiKey);
    secrets.push(org.apiKey, oauth.clientSecret);
  });
  afterAll(async () => {
    await stack?.stop();
    await oauth?.close();
    await http?.stop();
    await model?.close();
  });

  it('are JSON lines with a request id, echoed to the caller', async () => {
    const reply = await call('GET', '/me', undefined, { 'x-request-id': 'req-logs-1' });
    expect(reply.headers.get('x-request-id')).toBe('req-logs-1');
    const generated = (await call('GET', '/projects')).headers.get('x-request-id');
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);
    const lines = stack.logs
      .flatMap((chunk) => chunk.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'request',
        requestId: 'req-logs-1',
        method: 'GET',
        path: '/api/v1/me',
        status: 200,
        ms: expect.any(Number),
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', requestId: generated, path: '/api/v1/projects' }),
    );
  });

  it('redact secret fields wherever a logged object carries them', () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) }),
    );
    log.info(
      {
        authorization: 'Bearer sk_top_level',
        req: { headers: { authorization: 'Bearer sk_in_headers' } },
        body: { modelApiKeys: { openai: 'sk-model-nested' }, tokens: { access_token: 'at-nested' } },
        server: { env: { TOKEN: 'env-nested' }, config: { headers: { 'x-api-key': 'header-deep' } } },
        grant: {
          access_token: 'at-level-1',
          refresh_token: 'rt-level-1',
          clientInformation: { clientSecret: 'cs-level-2' },
        },
        safe: 'visible',
      },
      'secrets everywhere',
    );
    const line = lines.join('');
    for (const secret of [
      'sk_top_level',
      'sk_in_headers',
      'sk-model-nested',
      'at-nested',
      'env-nested',
      'header-deep',
      'at-level-1',
      'rt-level-1',
      'cs-level-2',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({
      safe: 'visible',
      authorization: '[redacted]',
      body: { modelApiKeys: '[redacted]' },
    });
  });

  it('never contain a bearer key, a model key, an OAuth token, or saved headers and env, whatever the request', async () => {
    // Bearer keys: valid, revoked-looking and malformed, on good and failing requests.
    const bogus = 'sk_bogus_key_9f8e7d6c5b4a';
    secrets.push(bogus);
    await apiClient(stack.baseUrl, bogus)('GET', '/me');
    await call('POST', `/projects/${org.projectId}/eval-runs`, 'not json');

    // Saved secrets: an HTTP server with an Authorization header, a stdio server with a secret env var.
    const headerSecret = 'Bearer saved-header-secret-3d2c';
    const envSecret = 'saved-env-secret-8b7a';
    secrets.push(headerSecret, 'saved-header-secret-3d2c', envSecret);
    const httpId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'http',
      transportType: 'http',
      url: http.url,
      headers: { Authorization: headerSecret },
    });
    const stdioId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'stdio',
      ...everythingOverStdio(),
      env: { RUNWAY_TEST_SECRET: envSecret },
    });
    for (const id of [httpId, stdioId]) {
      expect(
        (
          await call('POST', `/projects/${org.projectId}/servers/${id}/tools/call`, {
            toolName: 'echo',
            parameters: { message: 'x' },
          })
        ).status,
      ).toBe(200);
      expect((await call('POST', `/projects/${org.projectId}/servers/${id}/doctor`, {})).status).toBe(200);
    }

    // OAuth tokens: imported, injected, then refreshed after they expire.
    const oauthId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'oauth',
      transportType: 'http',
      url: oauth.url,
      useOAuth: true,
    });
    const pair = oauth.issueTokens();
    secrets.push(pair.access_token, pair.refresh_token);
    const imported = await call('POST', `/projects/${org.projectId}/servers/${oauthId}/oauth/import-tokens`, {
      serverUrl: oauth.url,
      tokens: pair,
      clientInformation: { clientId: oauth.clientId, clientSecret: oauth.clientSecret },
      authorizationServerUrl: oauth.issuer,
    });
    expect(imported.status).toBe(200);
    expect(
      (await call('POST', `/projects/${org.projectId}/servers/${oauthId}/tools/call`, { toolName: 'whoami' })).status,
    ).toBe(200);
    oauth.expireAccessTokens();
    expect(
      (await call('POST', `/projects/${org.projectId}/servers/${oauthId}/tools/call`, { toolName: 'whoami' })).status,
    ).toBe(200);
    expect(oauth.stats.refreshes).toBe(1);

    // A model key: in an eval run's body, through the worker to the model, and into a model call that fails.
    const modelKey = 'sk-model-logs-secret-6e5d';
    secrets.push(modelKey);
    model.setScript('logs-model', {
      byQuery: { 'echo please': [{ toolCalls: [{ name: 'echo', arguments: { message: 'x' } }] }, { text: 'ok' }] },
    });
    model.setScript('logs-broken', [{ error: { status: 401, message: 'invalid api key' } }]);
    const created = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Logs',
      serverIds: [stdioId],
      modelApiKeys: { openai: modelKey },
      tests: [
        { title: 'works', query: 'echo please', model: 'logs-model', provider: 'openai', runs: 1 },
        { title: 'model refuses the key', query: 'anything', model: 'logs-broken', provider: 'openai', runs: 1 },
      ],
    });
    expect(created.status).toBe(202);
    const run = await waitForRun(call, org.projectId, created.body.runId);
    expect(run.status).toBe('completed');
    expect(new Set(model.calls().map((c) => c.apiKey))).toEqual(new Set([modelKey]));

    const logs = stack.logs.join('');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(logs, `a secret reached the logs`).not.toContain(secret);
  });
});
