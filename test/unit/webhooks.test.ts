import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceCheck } from '../../domain/catalog/conformanceCheck.js';
import type { Run } from '../../domain/evals/run.js';
import type { Lookup } from '../../domain/mcp/outbound.js';
import { conformanceNotice, runNotice } from '../../domain/webhooks/payload.js';
import { EXCERPT_BYTES, sendWebhook } from '../../domain/webhooks/send.js';
import {
  messageIdFor,
  newWebhookSecret,
  signedHeaders,
  signWebhook,
  WebhookTargets,
} from '../../domain/webhooks/webhook.js';

describe('Standard Webhooks signing', () => {
  it('signs so that the standardwebhooks package verifies, and nothing else does', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: 'eval_run.completed', timestamp: '2026-01-01T00:00:00.000Z', data: { é: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders(secret, 'msg_1', now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // the package's own signature of the same message is ours, byte for byte
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('msg_1', new Date(now * 1000), body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body + ' ', headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
  });

  it('matches the specification test vector', () => {
    // https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md (example)
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const body = '{"test": 2432232314}';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('gives one event about one subject one message id', () => {
    expect(messageIdFor('eval_run.completed', 'run_a')).toBe(messageIdFor('eval_run.completed', 'run_a'));
    expect(messageIdFor('eval_run.completed', 'run_a')).not.toBe(messageIdFor('eval_run.failed', 'run_a'));
    expect(messageIdFor('eval_run.completed', 'run_a')).not.toBe(messageIdFor('eval_run.completed', 'run_b'));
    expect(messageIdFor('conformance.completed', 'chk_1')).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
  });
});

describe('endpoint URLs', () => {
  const strict = new WebhookTargets([]);
  const local = new WebhookTargets(['loopback']);

  it('takes public https URLs without resolving them', () => {
    expect(strict.refusal('https://hooks.example.com/runway')).toBeUndefined();
    expect(strict.refusal('https://93.184.216.34:8443/x?y=1')).toBeUndefined();
    expect(strict.refusal('https://[2606:4700::1111]/x')).toBeUndefined();
  });

  it.each([
    ['http://hooks.example.com/', 'https'],
    ['https://127.0.0.1/', 'not an address'],
    ['https://2130706433/', 'not an address'],
    ['https://0x7f.1/', 'not an address'],
    ['https://localhost/', 'loopback'],
    ['https://a.localhost/', 'loopback'],
    ['https://10.1.2.3/', 'not an address'],
    ['https://172.31.0.1/', 'not an address'],
    ['https://192.168.1.1/', 'not an address'],
    ['https://169.254.169.254/', 'not an address'],
    ['https://[::1]/', 'not an address'],
    ['https://[fe80::1]/', 'not an address'],
    ['https://[::ffff:10.0.0.1]/', 'not an address'],
    ['https://100.100.100.200/', 'not an address'],
    ['https://0.0.0.0/', 'not an address'],
    ['https://u:p@hooks.example.com/', 'credentials'],
    ['https://hooks.example.com/#x', 'fragment'],
    ['file:///etc/passwd', 'https'],
    ['hooks.example.com', 'not a URL'],
  ])('refuses %s', (url, why) => {
    expect(strict.refusal(url)).toContain(why);
  });

  it('lets an operator allow loopback (and then http), never link-local or other private ranges', () => {
    expect(local.refusal('http://127.0.0.1:4000/hook')).toBeUndefined();
    expect(local.refusal('http://localhost:4000/hook')).toBeUndefined();
    expect(local.refusal('https://169.254.169.254/')).toContain('not an address');
    expect(local.refusal('http://10.0.0.1/')).toContain('not an address');
    expect(local.refusal('ftp://127.0.0.1/')).toContain('http or https');
  });
});

describe('delivering to a hostile endpoint', () => {
  let server: Server;
  let origin = '';
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/redirect') return void res.writeHead(307, { location: '/ok' }).end();
      if (req.url === '/huge') return void res.writeHead(200).end('x'.repeat(5 * 1024 * 1024));
      if (req.url === '/slow') return; // never answers
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const local = new WebhookTargets(['loopback']);
  const send = (url: string, options: { lookup?: Lookup; targets?: WebhookTargets; timeoutMs?: number } = {}) =>
    sendWebhook(
      { url, headers: { 'content-type': 'application/json' }, body: '{}' },
      { targets: options.targets ?? local, timeoutMs: options.timeoutMs ?? 2_000, lookup: options.lookup },
    );

  it('refuses a name that resolves to a private address at delivery time, connecting nowhere', async () => {
    const resolvesPrivate: Lookup = (_host, _options, callback) => callback(null, [{ address: '10.0.0.5', family: 4 }]);
    const outcome = await send('https://hooks.example.com/x', {
      lookup: resolvesPrivate,
      targets: new WebhookTargets([]),
    });
    expect(outcome).toMatchObject({ succeeded: false, statusCode: null });
    expect(outcome.error).toContain('not an address');
    // ...and one resolving to loopback when only public addresses are allowed
    const resolvesLoopback: Lookup = (_host, _options, callback) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const port = new URL(origin).port;
    const before = seen.length;
    const refused = await send(`https://rebound.example.com:${port}/x`, {
      lookup: resolvesLoopback,
      targets: new WebhookTargets([]),
    });
    expect(refused.error).toContain('not an address');
    expect(seen.length).toBe(before);
  });

  it('accepts a 2xx, never follows a redirect, reads a bounded excerpt and times out', async () => {
    expect(await send(`${origin}/ok`)).toMatchObject({ succeeded: true, statusCode: 204, error: null });
    const before = seen.length;
    const redirected = await send(`${origin}/redirect`);
    expect(redirected).toMatchObject({ succeeded: false, statusCode: 307 });
    expect(redirected.error).toContain('redirects are not followed');
    expect(seen.slice(before)).toEqual(['/redirect']);
    const huge = await send(`${origin}/huge`);
    expect(huge.succeeded).toBe(true);
    expect(Buffer.byteLength(huge.responseExcerpt!)).toBeLessThanOrEqual(EXCERPT_BYTES);
    const slow = await send(`${origin}/slow`, { timeoutMs: 300 });
    expect(slow).toMatchObject({ succeeded: false, statusCode: null, error: 'no answer within 300 ms' });
    const closed = await send('http://127.0.0.1:9/');
    expect(closed.error).toMatch(/could not reach the endpoint/);
  });
});

describe('payloads', () => {
  const run = {
    id: 'run_1',
    suiteId: 'sui_1',
    projectId: 'prj_1',
    organizationId: 'org_1',
    runNumber: 4,
    status: 'failed',
    result: 'failed',
    summary: { total: 3, passed: 1, failed: 2, passRate: 1 / 3 },
    source: 'api',
    notes: 'private notes',
    modelKeysEnc: 'v1:sealed-model-keys',
    error: 'the model provider refused the key',
    createdAt: new Date('2026-01-01T00:00:00Z'),
    startedAt: new Date('2026-01-01T00:00:01Z'),
    completedAt: new Date('2026-01-01T00:01:00Z'),
  } as unknown as Run;

  it("carries a run's summary and links, and nothing else of the run", () => {
    const notice = runNotice(run, { suiteName: 'smoke', base: 'https://runway.example.com', endedAt: new Date() })!;
    expect(notice.event).toBe('eval_run.failed');
    expect(notice.data).toEqual({
      runId: 'run_1',
      runNumber: 4,
      projectId: 'prj_1',
      suite: { id: 'sui_1', name: 'smoke' },
      source: 'api',
      status: 'failed',
      result: 'failed',
      passRate: 1 / 3,
      counts: { total: 3, passed: 1, failed: 2 },
      error: 'the model provider refused the key',
      createdAt: '2026-01-01T00:00:00.000Z',
      startedAt: '2026-01-01T00:00:01.000Z',
      completedAt: '2026-01-01T00:01:00.000Z',
      links: {
        api: 'https://runway.example.com/api/v1/projects/prj_1/eval-runs/run_1',
        console: 'https://runway.example.com/console/#/projects/prj_1/runs/run_1',
      },
    });
    expect(JSON.stringify(notice)).not.toContain('sealed');
    expect(
      runNotice({ ...run, status: 'running' }, { suiteName: null, base: '', endedAt: new Date() }),
    ).toBeUndefined();
    expect(runNotice({ ...run, status: 'cancelled' }, { suiteName: null, base: '', endedAt: new Date() })?.event).toBe(
      'eval_run.cancelled',
    );
  });

  it("carries a completed check's score, and nothing for a check that did not complete", () => {
    const check = {
      id: 'chk_1',
      organizationId: 'org_1',
      projectId: 'prj_1',
      serverId: 'srv_1',
      specVersion: '2026-07-28',
      status: 'completed',
      report: {
        suiteVersion: '0.2.0',
        score: { value: 90, passedScenarios: 9, scoredScenarios: 10, passedChecks: 30, failedChecks: 1 },
      },
      createdAt: new Date(0),
      startedAt: new Date(1000),
      finishedAt: new Date(2000),
    } as unknown as ConformanceCheck;
    const notice = conformanceNotice(check, { base: 'https://r.example' })!;
    expect(notice).toMatchObject({
      event: 'conformance.completed',
      subjectId: 'chk_1',
      data: {
        score: 90,
        passedScenarios: 9,
        links: { api: 'https://r.example/api/v1/projects/prj_1/servers/srv_1/conformance/chk_1' },
      },
    });
    expect(conformanceNotice({ ...check, status: 'failed', report: null }, { base: '' })).toBeUndefined();
  });
});
