import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorEnvelopeSchema } from '../../api/errors.js';
import { apiClient } from '../helpers/http.js';
import { everythingOverStdio, saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/*
 * Issue 29, item 9: errors that say where. A model id the catalog does not have, with an empty catalog and no
 * provider key; a server's name where its id is expected; a known path asked with the wrong method.
 */

describe('errors that say where the problem is and what to do', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;

  beforeAll(async () => {
    // No HOSTED_MODELS, no provider key: a fresh install.
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '100000', RATE_LIMIT_PER_MINUTE: '6000000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    serverId = await saveServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 'everything (stdio)',
      ...everythingOverStdio(),
    });
    await saveServer(stack.sql, stack.box, { projectId: org.projectId, name: 'weather', ...everythingOverStdio() });
  });
  afterAll(async () => stack?.stop());

  it('a <provider>/<name> model with an empty catalog and no key says that none is available and how to get one', async () => {
    const reply = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'Hosted model',
      serverIds: [serverId],
      tests: [{ title: 'echo', query: 'echo hello', model: 'openai/gpt-4.1-mini' }],
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'NOT_HOSTED', model: 'openai/gpt-4.1-mini', hostedModels: [], caseTitle: 'echo' },
    });
    const { message } = reply.body as { message: string };
    expect(message).toContain('openai/gpt-4.1-mini is not a hosted model');
    expect(message).toContain('no hosted model is available');
    expect(message).toContain('HOSTED_MODELS');
    expect(message).toContain('"model": "gpt-4.1-mini", "provider": "openai"');
    expect(message).toContain('npm run -s admin -- provider-key set --org <organizationId> --provider openai');
    expect(message).toContain('docs/MODEL-KEYS.md');
  });

  it("a server's name where its id is expected: the reply says it looks like a name and where the ids are", async () => {
    const byName = await call(
      'POST',
      `/projects/${org.projectId}/servers/${encodeURIComponent('everything (stdio)')}/tools`,
      {},
    );
    expect(byName.status).toBe(400);
    expect(byName.body.code).toBe('VALIDATION_ERROR');
    expect(byName.body.message).toContain('"everything (stdio)" is not a server id');
    expect(byName.body.message).toContain("looks like a server's name");
    expect(byName.body.message).toContain(`GET /projects/${org.projectId}/servers`);

    // A name that is also a well-formed id is looked up as an id: not found, and the reply names the server's id.
    const idShaped = await call('POST', `/projects/${org.projectId}/servers/weather/tools`, {});
    expect(idShaped.status).toBe(404);
    expect(idShaped.body).toMatchObject({ code: 'NOT_FOUND', details: { serverId: 'weather' } });
    expect(idShaped.body.message).toMatch(/"weather" is the name of server srv_\w+; use its id/);

    // The same in a run's serverIds.
    const inRun = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'By name',
      serverIds: ['everything (stdio)'],
      tests: [{ title: 't', query: 'q', model: 'm', provider: 'openai' }],
    });
    expect(inRun.status).toBe(400);
    expect(inRun.body.message).toContain('"everything (stdio)" is not a server id');
    const idShapedInRun = await call('POST', `/projects/${org.projectId}/eval-runs`, {
      suiteName: 'By name',
      serverIds: ['weather'],
      tests: [{ title: 't', query: 'q', model: 'm', provider: 'openai' }],
    });
    expect(idShapedInRun.status).toBe(404);
    expect(idShapedInRun.body.message).toMatch(/"weather" is the name of server srv_\w+; use its id/);

    // An unknown id is still a plain 404, with where the ids are.
    const unknown = await call('POST', `/projects/${org.projectId}/servers/srv_unknown0000/tools`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain(`GET /projects/${org.projectId}/servers`);
  });

  it('a known path with the wrong method is 405 in the envelope, with the Allow header naming the methods', async () => {
    const cases: [string, string, string][] = [
      ['GET', `/projects/${org.projectId}/servers/${serverId}/tools`, 'POST'],
      ['DELETE', `/projects/${org.projectId}/servers`, 'GET, HEAD'],
      ['PUT', `/projects/${org.projectId}/eval-runs`, 'POST'],
      ['POST', `/projects/${org.projectId}/eval-runs/run_x`, 'GET, HEAD'],
      ['PUT', `/projects/${org.projectId}/hosts/host_x`, 'GET, HEAD, PATCH, DELETE'],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await call(method, path, method === 'GET' ? undefined : {});
      const where = `${method} ${path}`;
      expect(reply.status, where).toBe(405);
      expect(reply.headers.get('allow'), where).toBe(allow);
      expect(errorEnvelopeSchema.safeParse(reply.body).success, where).toBe(true);
      expect(reply.body, where).toMatchObject({
        code: 'METHOD_NOT_ALLOWED',
        details: { method, allowed: allow.split(', ') },
      });
      expect(reply.body.message, where).toContain(`${method} is not allowed here`);
      expect(reply.body.message, where).toContain(allow.split(', ')[0]);
    }

    // The SDK alias too, with the `error` string its client reads.
    const sdk = apiClient(`${stack.origin}/sdk/v1`, org.apiKey);
    const alias = await sdk('GET', '/evals/report');
    expect(alias).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED', error: expect.any(String) } });
    expect(alias.headers.get('allow')).toBe('POST');

    // Outside the API: the probes answer GET only.
    const probe = await fetch(`${stack.origin}/healthz`, { method: 'POST' });
    expect(probe.status).toBe(405);
    expect(probe.headers.get('allow')).toBe('GET, HEAD');

    // A path nothing serves is still 404, and without a key the key is asked for first.
    const nowhere = await call('GET', `/projects/${org.projectId}/nothing-here`);
    expect(nowhere).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    const anonymous = await apiClient(stack.baseUrl)('GET', `/projects/${org.projectId}/servers/${serverId}/tools`);
    expect(anonymous.status).toBe(401);
  });
});
