import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allIterations } from '../helpers/evals.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const artifact = (name: string) => readFileSync(new URL(`../fixtures/artifacts/${name}`, import.meta.url));

/** Sends raw bytes to an upload URL the way a CI step would: no key, any content type. */
async function upload(
  url: string,
  body: Buffer | string,
  init: { method?: 'POST' | 'PUT'; contentType?: string } = {},
) {
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { 'content-type': init.contentType ?? 'application/octet-stream' },
    body,
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('eval ingest: artifact uploads', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
  });
  afterAll(async () => stack?.stop());

  const mint = async (body: Record<string, unknown> = {}, projectId = org.projectId) => {
    const reply = await call('POST', `/projects/${projectId}/eval-ingest/artifacts/upload-url`, body);
    expect(reply.status).toBe(200);
    return reply.body as { ok: true; uploadUrl: string; expiresAt: number };
  };

  /** The run an artifact became, with its iterations keyed by title. */
  const readRun = async (runId: string) => {
    const run = (await call('GET', `/projects/${org.projectId}/eval-runs/${runId}`)).body;
    const iterations = await allIterations(call, org.projectId, runId);
    return { run, iterations, byTitle: Object.fromEntries(iterations.map((i) => [i.title, i])) };
  };

  it('mints a short-lived URL on this service and stores only a hash of its token', async () => {
    const before = Date.now();
    const minted = await mint({ format: 'junit-xml', suiteName: 'CI' });
    expect(minted.uploadUrl).toMatch(
      new RegExp(`^${stack.origin}/api/v1/eval-ingest/uploads\\?token=[0-9A-Za-z]{43}$`),
    );
    expect(minted.expiresAt).toBeGreaterThanOrEqual(before + 14 * 60_000);
    expect(minted.expiresAt).toBeLessThanOrEqual(Date.now() + 15 * 60_000 + 5_000);
    const token = new URL(minted.uploadUrl).searchParams.get('token')!;
    const rows = await stack.sql`SELECT * FROM ingest_artifacts WHERE project_id = ${org.projectId}`;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0]).toMatchObject({
      format: 'junit-xml',
      suite_name: 'CI',
      used_at: null,
      created_by_key_id: org.keyId,
    });
    // Nor does the request log carry it once the URL is used.
    expect((await upload(minted.uploadUrl, artifact('pytest-junit.xml'))).status).toBe(200);
    expect(stack.logs.join('')).toContain('/eval-ingest/uploads');
    expect(stack.logs.join('')).not.toContain(token);
  });

  it('pytest JUnit XML becomes a finalized run: passed, failed, errored and skipped tests', async () => {
    const { uploadUrl } = await mint({ format: 'junit-xml', suiteName: 'Weather (pytest)' });
    const reply = await upload(uploadUrl, artifact('pytest-junit.xml'), { contentType: 'application/xml' });
    expect(reply).toEqual({
      status: 200,
      body: {
        ok: true,
        storageId: expect.stringMatching(/^art_/),
        runId: expect.stringMatching(/^run_/),
        suiteId: expect.stringMatching(/^sui_/),
        status: 'completed',
        result: 'failed',
        // An assertion that did not hold is failed, a test that could not run is errored (domain/evals/verdicts.ts).
        summary: expect.objectContaining({ total: 4, passed: 2, failed: 1, errored: 1, passRate: 0.5 }),
        skipped: 1,
      },
    });
    const { run, iterations, byTitle } = await readRun(reply.body.runId);
    expect(run).toMatchObject({
      source: 'sdk',
      status: 'completed',
      progress: { total: 5, completed: 4, passed: 2, failed: 1, errored: 1 },
    });
    expect(iterations.map((i) => i.title)).toEqual([
      'test_forecast_for_known_city',
      'test_low_temperature',
      'test_severe_weather_alerts',
      'test_alerts_endpoint',
      'test_units_conversion',
    ]);
    expect(byTitle.test_forecast_for_known_city).toMatchObject({
      status: 'completed',
      result: 'passed',
      durationMs: 1,
      error: null,
      metadata: { outcome: 'passed', suite: 'weather-tools' },
    });
    expect(byTitle.test_low_temperature).toMatchObject({
      status: 'completed',
      result: 'failed',
      error: 'assert 12 == -3',
      metadata: { outcome: 'failed' },
    });
    expect(byTitle.test_alerts_endpoint).toMatchObject({
      status: 'failed',
      result: 'failed',
      error: 'failed on setup with "ConnectionError: alerts server is not reachable on 127.0.0.1:8765"',
      metadata: { outcome: 'errored' },
    });
    expect(byTitle.test_severe_weather_alerts).toMatchObject({
      status: 'cancelled',
      result: null,
      error: null,
      metadata: { outcome: 'skipped', skipReason: 'needs a weather API key' },
    });
    const [details] =
      await stack.sql`SELECT error_details FROM eval_iterations WHERE id = ${byTitle.test_low_temperature.id}`;
    expect(details.error_details).toContain('tests/test_weather.py:18: AssertionError');
    const cases =
      await stack.sql`SELECT title, query FROM eval_cases WHERE suite_id = ${reply.body.suiteId} ORDER BY title`;
    expect(cases.map((c) => c.query)).toEqual(Array(5).fill('tests.test_weather'));
    const [stored] = await stack.sql`SELECT framework, external_run_id FROM eval_runs WHERE id = ${reply.body.runId}`;
    expect(stored).toEqual({
      framework: 'junit',
      external_run_id: expect.stringMatching(/^artifact:sha256:[0-9a-f]{64}$/),
    });
  });

  it('Vitest JUnit XML (PUT), with a test file that failed to load and todo tests', async () => {
    const { uploadUrl } = await mint({ format: 'junit-xml' });
    const reply = await upload(uploadUrl, artifact('vitest-junit.xml'), { method: 'PUT', contentType: 'text/xml' });
    expect(reply.body).toMatchObject({
      status: 'completed',
      result: 'failed',
      // Vitest writes a file that failed to load as a <failure>: failed, as the report says.
      summary: { total: 4, passed: 1, failed: 3, errored: 0 },
      skipped: 2,
    });
    const { byTitle } = await readRun(reply.body.runId);
    expect(byTitle['weather tools > reports the low temperature']).toMatchObject({
      status: 'completed',
      result: 'failed',
      error: 'expected 12 to be -3 // Object.is equality',
      durationMs: 8,
    });
    expect(byTitle['test/broken.test.ts']).toMatchObject({
      result: 'failed',
      error:
        "Cannot find module './does-not-exist.js' imported from /home/runner/work/weather-mcp/weather-mcp/test/broken.test.ts",
    });
    expect(byTitle['weather tools > converts units']).toMatchObject({
      status: 'cancelled',
      metadata: { outcome: 'skipped' },
    });
    const suites = (await call('GET', `/projects/${org.projectId}/eval-suites`)).body.items;
    // No suiteName: the suite is the one the report names.
    expect(suites.find((s: { id: string }) => s.id === reply.body.suiteId).name).toBe('vitest tests');
  });

  it('the same report uploaded again, through another URL, is the same run; a given externalRunId names the run', async () => {
    const first = await upload(
      (await mint({ format: 'junit-xml', suiteName: 'Uploaded twice' })).uploadUrl,
      artifact('vitest-junit.xml'),
    );
    const again = await upload(
      (await mint({ format: 'junit-xml', suiteName: 'Uploaded twice' })).uploadUrl,
      artifact('vitest-junit.xml'),
    );
    expect(first.body).not.toHaveProperty('reused');
    expect(again.body).toMatchObject({
      runId: first.body.runId,
      suiteId: first.body.suiteId,
      result: 'failed',
      reused: true,
    });
    expect(again.body.storageId).not.toBe(first.body.storageId);
    const runs =
      await stack.sql`SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.name = 'Uploaded twice'`;
    expect(runs).toHaveLength(1);

    // Another suite name is another run on purpose; so is another externalRunId, and the same one is the same run.
    const elsewhere = await upload(
      (await mint({ format: 'junit-xml', suiteName: 'Uploaded elsewhere' })).uploadUrl,
      artifact('vitest-junit.xml'),
    );
    expect(elsewhere.body.runId).not.toBe(first.body.runId);
    const named = await upload(
      (await mint({ format: 'junit-xml', suiteName: 'Uploaded twice', externalRunId: 'ci-1234-1' })).uploadUrl,
      artifact('vitest-junit.xml'),
    );
    expect(named.body.runId).not.toBe(first.body.runId);
    const [stored] = await stack.sql`SELECT external_run_id FROM eval_runs WHERE id = ${named.body.runId}`;
    expect(stored.external_run_id).toBe('ci-1234-1');
    const renamed = await upload(
      (await mint({ format: 'junit-xml', externalRunId: 'ci-1234-1' })).uploadUrl,
      artifact('pytest-junit.xml'),
    );
    expect(renamed.body).toMatchObject({ runId: named.body.runId, reused: true });
  });

  it.each([
    ['jest-json', 'jest.json', 'jest', 'Jest artifacts', '__tests__'],
    ['vitest-json', 'vitest.json', 'vitest', 'Vitest artifacts', 'test'],
  ])(
    '%s: passed, failed, errored (a thrown TypeError, a file that failed to run) and skipped (skip, todo) tests',
    async (format, file, framework, suiteName, folder) => {
      const { uploadUrl } = await mint({ format });
      const reply = await upload(uploadUrl, artifact(file), { contentType: 'application/json' });
      expect(reply.body).toMatchObject({
        ok: true,
        status: 'completed',
        result: 'failed',
        summary: { total: 4, passed: 1, failed: 1, errored: 2, passRate: 0.25 },
        skipped: 2,
      });
      const { iterations, byTitle } = await readRun(reply.body.runId);
      expect(iterations).toHaveLength(6);
      expect(byTitle['weather tools returns a forecast for a known city']).toMatchObject({
        status: 'completed',
        result: 'passed',
        metadata: { outcome: 'passed' },
      });
      expect(byTitle['weather tools reports the low temperature']).toMatchObject({
        status: 'completed',
        result: 'failed',
        metadata: { outcome: 'failed' },
      });
      expect(byTitle['weather tools calls the alerts endpoint']).toMatchObject({
        result: 'failed',
        error: 'TypeError: client.alerts is not a function',
        metadata: { outcome: 'errored' },
      });
      expect(byTitle['weather tools lists severe weather alerts']).toMatchObject({
        status: 'cancelled',
        result: null,
        metadata: { outcome: 'skipped' },
      });
      expect(byTitle['weather tools converts units']).toMatchObject({
        status: 'cancelled',
        result: null,
        metadata: { outcome: 'skipped' },
      });
      const broken = iterations.find((i) =>
        i.title.endsWith(`${folder}/broken.test.${format === 'jest-json' ? 'js' : 'ts'}`),
      );
      expect(broken).toMatchObject({ status: 'failed', result: 'failed', metadata: { outcome: 'errored' } });
      expect(broken.error).toMatch(/Cannot find module|Test suite failed to run/);
      for (const iteration of iterations) expect(iteration.error ?? '').not.toContain('\u001b');
      const [stored] = await stack.sql`SELECT framework FROM eval_runs WHERE id = ${reply.body.runId}`;
      expect(stored.framework).toBe(framework);
      const suite = (await call('GET', `/projects/${org.projectId}/eval-suites`)).body.items.find(
        (s: { id: string }) => s.id === reply.body.suiteId,
      );
      expect(suite).toMatchObject({ name: suiteName, latestRun: { id: reply.body.runId, passRate: 0.25 } });
    },
  );

  it('without a format the blob is only stored', async () => {
    const { uploadUrl } = await mint({}, 'default');
    const html = '<!doctype html><p>widget</p>';
    const reply = await upload(uploadUrl, html, { contentType: 'text/html; charset=utf-8' });
    expect(reply).toEqual({ status: 200, body: { ok: true, storageId: expect.stringMatching(/^art_/) } });
    const [row] =
      await stack.sql`SELECT content, content_type, run_id, project_id FROM ingest_artifacts WHERE id = ${reply.body.storageId}`;
    expect(row).toEqual({
      content: Buffer.from(html),
      content_type: 'text/html; charset=utf-8',
      run_id: null,
      project_id: org.projectId,
    });
  });

  it('a forged URL is 404, an expired one 403, a used one 409; each says why, also in an `error` string', async () => {
    const forged = await upload(`${stack.origin}/api/v1/eval-ingest/uploads?token=${'x'.repeat(43)}`, 'data');
    expect(forged).toEqual({
      status: 404,
      body: {
        code: 'NOT_FOUND',
        message: expect.stringContaining('never issued'),
        error: expect.any(String),
        details: { reason: 'UPLOAD_URL_UNKNOWN' },
      },
    });
    for (const url of [
      `${stack.origin}/api/v1/eval-ingest/uploads`,
      `${stack.origin}/api/v1/eval-ingest/uploads?token=a&token=b`,
    ]) {
      expect((await upload(url, 'data')).body.details).toEqual({ reason: 'UPLOAD_URL_UNKNOWN' });
    }

    const expiring = await mint({ format: 'junit-xml' });
    await stack.sql`UPDATE ingest_artifacts SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`;
    const expired = await upload(expiring.uploadUrl, artifact('pytest-junit.xml'));
    expect(expired).toMatchObject({
      status: 403,
      body: {
        code: 'FORBIDDEN',
        message: expect.stringContaining('expired'),
        error: expect.stringContaining('expired'),
        details: { reason: 'UPLOAD_URL_EXPIRED' },
      },
    });

    const { uploadUrl } = await mint();
    expect((await upload(uploadUrl, 'first')).status).toBe(200);
    const reused = await upload(uploadUrl, 'second');
    expect(reused).toMatchObject({
      status: 409,
      body: {
        code: 'CONFLICT',
        error: expect.stringContaining('already used'),
        details: { reason: 'UPLOAD_URL_ALREADY_USED' },
      },
    });
    const [row] =
      await stack.sql`SELECT content FROM ingest_artifacts WHERE content IS NOT NULL AND content = ${Buffer.from('first')}`;
    expect(row).toBeDefined();
    // The upload URL is its own credential: a bearer key changes nothing, and none is needed.
    expect(
      (await fetch(uploadUrl, { method: 'POST', headers: { authorization: 'Bearer sk_nope' }, body: 'third' })).status,
    ).toBe(409);
  });

  it('the same bytes sent again (a retry whose reply was lost) get the same reply and make no second run', async () => {
    const { uploadUrl } = await mint({ format: 'jest-json', suiteName: 'Retried upload' });
    const first = await upload(uploadUrl, artifact('jest.json'));
    const retry = await upload(uploadUrl, artifact('jest.json'));
    expect(retry).toEqual(first);
    const runs =
      await stack.sql`SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.name = 'Retried upload'`;
    expect(runs).toHaveLength(1);
  });

  it('concurrent uploads to one URL: one is stored, the others are refused', async () => {
    const { uploadUrl } = await mint({ format: 'vitest-json', suiteName: 'Racing uploads' });
    const vitest = JSON.parse(artifact('vitest.json').toString());
    const variants = Array.from({ length: 6 }, (_, i) => JSON.stringify({ ...vitest, startTime: i }));
    const replies = await Promise.all(variants.map((body) => upload(uploadUrl, body)));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(5);
    const runs =
      await stack.sql`SELECT r.id FROM eval_runs r JOIN eval_suites s ON s.id = r.suite_id WHERE s.name = 'Racing uploads'`;
    expect(runs).toHaveLength(1);
  });

  it('an artifact that cannot be read is a 400 and leaves the URL usable for a fixed file', async () => {
    const junit = await mint({ format: 'junit-xml' });
    const notXml = await upload(junit.uploadUrl, '<testsuites><testsuite name="x"><testcase name="a"></testsuite>');
    expect(notXml).toMatchObject({
      status: 400,
      body: {
        code: 'VALIDATION_ERROR',
        error: expect.stringContaining('not well-formed XML'),
        details: { reason: 'ARTIFACT_UNREADABLE', line: expect.any(Number) },
      },
    });
    const notJunit = await upload(junit.uploadUrl, '<html><body>report</body></html>');
    expect(notJunit.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'ARTIFACT_UNREADABLE' } });
    const empty = await upload(junit.uploadUrl, '<testsuites name="none"></testsuites>');
    expect(empty.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'ARTIFACT_EMPTY' } });
    expect((await upload(junit.uploadUrl, artifact('pytest-junit.xml'))).status).toBe(200);

    const jest = await mint({ format: 'jest-json' });
    expect((await upload(jest.uploadUrl, '{"testResults": ')).body).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'ARTIFACT_UNREADABLE' },
    });
    expect((await upload(jest.uploadUrl, '{"numTotalTests": 0}')).body.message).toContain('no testResults');
    expect((await upload(jest.uploadUrl, artifact('jest.json'))).status).toBe(200);
  });

  it('a NUL in a report (captured binary output) is stored as U+FFFD, not refused by Postgres', async () => {
    const { uploadUrl } = await mint({ format: 'vitest-json' });
    const report = JSON.parse(artifact('vitest.json').toString());
    report.testResults[1].assertionResults[1].failureMessages = ['AssertionError: expected "a\u0000b" to be "ab"'];
    const reply = await upload(uploadUrl, JSON.stringify(report));
    expect(reply.status).toBe(200);
    const { byTitle } = await readRun(reply.body.runId);
    expect(byTitle['weather tools reports the low temperature'].error).toBe(
      'AssertionError: expected "a\uFFFDb" to be "ab"',
    );
  });

  it('XML entities cannot blow up: nested ones stay unexpanded, wide ones past the bound are refused', async () => {
    const nested = await mint({ format: 'junit-xml' });
    const entities = ['<!ENTITY a0 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx">'];
    for (let i = 1; i < 10; i++) entities.push(`<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`);
    const laughs = `<?xml version="1.0"?><!DOCTYPE testsuites [${entities.join('')}]><testsuites><testsuite name="b"><testcase name="&a9;"/></testsuite></testsuites>`;
    const reply = await upload(nested.uploadUrl, laughs);
    expect(reply.status).toBe(200);
    expect((await readRun(reply.body.runId)).iterations.map((i) => i.title)).toEqual(['&a9;']);

    const wide = await mint({ format: 'junit-xml' });
    const testcase = `<testcase name="${'&a;'.repeat(20)}"/>`;
    const flood = `<?xml version="1.0"?><!DOCTYPE testsuites [<!ENTITY a "${'x'.repeat(9000)}">]><testsuites><testsuite name="b">${testcase.repeat(1000)}</testsuite></testsuites>`;
    expect(await upload(wide.uploadUrl, flood)).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'ARTIFACT_UNREADABLE' } },
    });
  });

  it('an upload over 6 MiB is a 400 BODY_TOO_LARGE; the URL stays usable', async () => {
    const { uploadUrl } = await mint();
    const reply = await upload(uploadUrl, Buffer.alloc(6 * 1024 * 1024 + 1, 'a'));
    expect(reply).toMatchObject({
      status: 400,
      body: { code: 'VALIDATION_ERROR', details: { reason: 'BODY_TOO_LARGE', limit: 6 * 1024 * 1024 } },
    });
    expect((await upload(uploadUrl, Buffer.alloc(6 * 1024 * 1024, 'a'))).status).toBe(200);
  });

  it('upload-url validates its body and needs a key', async () => {
    expect(
      (await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, { format: 'trx' })).body,
    ).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(
      (await apiClient(stack.baseUrl)('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, {}))
        .status,
    ).toBe(401);
  });

  it('builds the URL on PUBLIC_URL when it is set', async () => {
    const behindProxy = await startTestStack({
      worker: false,
      database: stack.db,
      config: { PUBLIC_URL: 'https://runway.example.test/base/', RATE_LIMIT_BURST: '10000' },
    });
    try {
      const reply = await apiClient(behindProxy.baseUrl, org.apiKey)(
        'POST',
        '/projects/default/eval-ingest/artifacts/upload-url',
        {},
      );
      expect(reply.body.uploadUrl).toMatch(
        /^https:\/\/runway\.example\.test\/base\/api\/v1\/eval-ingest\/uploads\?token=[0-9A-Za-z]{43}$/,
      );
    } finally {
      await behindProxy.stop();
    }
  });
});
