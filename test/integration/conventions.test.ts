import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('conventions every route follows', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let hostsPath: string;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    hostsPath = `/projects/${org.projectId}/hosts`;
  });
  afterAll(async () => stack?.stop());

  const hostCount = async () => (await stack.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM hosts`)[0].n;

  it.each([
    ['malformed JSON', '{"name": "x",', 'request body is not valid JSON'],
    ['a JSON array', '[1, 2]', 'request body must be a JSON object'],
    ['a JSON string', '"hello"', 'request body must be a JSON object'],
    ['JSON null', 'null', 'request body must be a JSON object'],
    ['a number', '42', 'request body must be a JSON object'],
  ])('a body that is %s is 400 VALIDATION_ERROR', async (_label, raw, message) => {
    const reply = await call('POST', hostsPath, raw);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 'VALIDATION_ERROR', message });
    expect(await hostCount()).toBe(0);
  });

  it('an empty body counts as {} (and is then validated)', async () => {
    const reply = await call('POST', hostsPath, '');
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('VALIDATION_ERROR');
    expect(reply.body.message).toMatch(/^body\.name: /);
  });

  it('reads the body as JSON whatever the content type says', async () => {
    const reply = await call('POST', hostsPath, JSON.stringify({ name: 'plain', template: 'claude' }), {
      'content-type': 'text/plain',
    });
    expect(reply.status).toBe(201);
  });

  it('an oversized body is a 400 with reason BODY_TOO_LARGE, answered without reading it all', async () => {
    const huge = JSON.stringify({ name: 'x', template: 'claude', pad: 'x'.repeat(2 * 1024 * 1024) });
    const reply = await call('POST', hostsPath, huge);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'BODY_TOO_LARGE' } });
  });

  it('wrong types name the offending field', async () => {
    const reply = await call('POST', hostsPath, { name: 42, template: 'claude' });
    expect(reply.status).toBe(400);
    expect(reply.body.details.issues[0].path).toBe('body.name');
  });

  it('an unknown request field is refused with where it is, never ignored (strict-bodies.test.ts has every route)', async () => {
    const hosts = await hostCount();
    const reply = await call('POST', hostsPath, { name: 'extra', template: 'claude', color: 'blue' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'unknown field `body.color`; the fields accepted here are `name`, `template`, `config`, `theme`',
      details: {
        reason: 'UNKNOWN_FIELD',
        issues: [
          {
            path: 'body.color',
            field: 'color',
            hint: 'the fields accepted here are `name`, `template`, `config`, `theme`',
            message: reply.body.message,
          },
        ],
      },
    });
    expect(await hostCount()).toBe(hosts);
  });

  it.each([
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/elsewhere'],
  ])('%s %s is 404 NOT_FOUND in the envelope', async (method, path) => {
    const reply = await apiClient(stack.origin, org.apiKey)(method, path);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String) });
  });

  it.each([
    ['POST', '/api/v1/projects', 'GET'],
    ['DELETE', '/api/v1/me', 'GET'],
  ])(
    '%s %s, a path served with another method, is 405 METHOD_NOT_ALLOWED in the envelope',
    async (method, path, allowed) => {
      const reply = await apiClient(stack.origin, org.apiKey)(method, path);
      expect(reply.status).toBe(405);
      expect(reply.body).toMatchObject({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String) });
      expect(reply.headers.get('allow')).toContain(allowed);
    },
  );

  it('an unknown project is 404 NOT_FOUND', async () => {
    const reply = await call('GET', '/projects/prj_doesnotexist/servers');
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('a huge path parameter is a 400, not a slow query', async () => {
    const reply = await call('GET', `/projects/${'p'.repeat(5000)}/servers`);
    expect(reply.status).toBe(400);
  });

  it('every reply carries a request id', async () => {
    const reply = await call('GET', '/me', undefined, { 'x-request-id': 'trace-123' });
    expect(reply.headers.get('x-request-id')).toBe('trace-123');
    expect((await call('GET', '/me')).headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });

  it('health and readiness answer without a key', async () => {
    expect((await apiClient(stack.origin)('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await apiClient(stack.origin)('GET', '/readyz');
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } } });
  });
});
