import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { createChatSession } from '../../db/catalog.js';
import { createServer } from '../../db/servers.js';
import { snapshotDatabase } from '../helpers/dbSnapshot.js';
import { sampleResults } from '../helpers/ingest.js';
import { apiClient, type ApiReply } from '../helpers/http.js';
import { fixtureOverStdio } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

const artifact = (name: string) => readFileSync(new URL(`../fixtures/artifacts/${name}`, import.meta.url), 'utf8');

/** Sends raw bytes to an upload URL the way a CI step would: no key. */
async function upload(url: string, body: string) {
  const response = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, body: (await response.json()) as any };
}

/** `[[[...]]]`, `depth` arrays deep around `inner`, as raw JSON text (JSON.stringify would overflow building it). */
const deepArrays = (depth: number, inner = '') => '['.repeat(depth) + inner + ']'.repeat(depth);
/** `{"a":{"a":...}}`, `depth` objects deep. */
const deepObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** A 400 in the contract's envelope, whose message names what was wrong. */
function expectValidationError(reply: ApiReply, message: RegExp) {
  expect(reply.status).toBe(400);
  expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(message) });
}

/**
 * Regressions of issue 13, section 4: inputs that once answered 500 INTERNAL_ERROR. Each answers a clear 400 now
 * (and writes nothing), or is stored as the caller meant it.
 */
describe('hostile inputs', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let serverId: string;
  let runId: string;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    serverId = (
      await createServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name: 'tools',
        ...fixtureOverStdio('tools-only'),
      })
    ).id;
    const report = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
      suiteName: 'hostile',
      externalRunId: 'hostile-1',
      results: sampleResults(3),
    });
    expect(report.status).toBe(200);
    runId = report.body.runId;
    await createChatSession(stack.sql, { projectId: org.projectId, userId: org.userId, title: 'chat' });
  });
  afterAll(async () => stack?.stop());

  describe('a cursor whose signature has multi-byte characters', () => {
    const cursor = `abc.${'é'.repeat(43)}`;

    it('is a 400 INVALID_CURSOR on GET lists', async () => {
      for (const path of [`/projects/${org.projectId}/eval-runs/${runId}/iterations`, '/chat-sessions']) {
        const reply = await call('GET', `${path}?cursor=${encodeURIComponent(cursor)}`);
        expectValidationError(reply, /cursor is invalid/);
        expect(reply.body.details).toEqual({ reason: 'INVALID_CURSOR' });
      }
    });

    it('is a 400 INVALID_CURSOR on the server lists', async () => {
      const reply = await call('POST', `/projects/${org.projectId}/servers/${serverId}/tools`, { cursor });
      expectValidationError(reply, /cursor is invalid/);
    });
  });

  describe('deep nesting', () => {
    it('a body nested 200,000 arrays deep is a 400 naming the bound', async () => {
      // The NUL at the bottom once sent the recursive NUL scan down all 200,000 levels.
      const reply = await call(
        'POST',
        `/projects/${org.projectId}/hosts`,
        `{"name":"deep","config":${deepArrays(200_000, '"\\u0000"')}}`,
      );
      expectValidationError(reply, /nested deeper than 64/);
      expect(reply.body.details).toMatchObject({ reason: 'BODY_TOO_DEEP', limit: 64 });
    });

    it('deeply nested host clientCapabilities are a 400', async () => {
      const config = JSON.stringify({ ...templateConfig('claude'), clientCapabilities: { sampling: '@' } }).replace(
        '"@"',
        deepObjects(20_000),
      );
      expectValidationError(
        await call('POST', `/projects/${org.projectId}/hosts`, `{"name":"deep caps","config":${config}}`),
        /nested deeper than 64/,
      );
    });

    it('deeply nested tools/call parameters are a 400', async () => {
      const reply = await call(
        'POST',
        `/projects/${org.projectId}/servers/${serverId}/tools/call`,
        `{"toolName":"echo","parameters":{"message":${deepArrays(50_000)}}}`,
      );
      expectValidationError(reply, /nested deeper than 64/);
    });

    it('a body of nothing but structure is a 400 naming the node bound', async () => {
      const flat = `[${Array(1_100_000).fill('0').join(',')}]`;
      const reply = await call(
        'POST',
        `/projects/${org.projectId}/eval-ingest/report`,
        `{"suiteName":"s","externalRunId":"r","results":[],"x":${flat}}`,
      );
      expectValidationError(reply, /more than 1,000,000 values/);
      expect(reply.body.details).toMatchObject({ reason: 'BODY_TOO_MANY_VALUES', limit: 1_000_000 });
    });

    it('a JUnit report nested deeper than the parser goes is a 400', async () => {
      const { body: minted } = await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, {
        format: 'junit-xml',
      });
      const xml = `<testsuites>${'<testsuite name="s">'.repeat(5_000)}<testcase name="t"/>${'</testsuite>'.repeat(5_000)}</testsuites>`;
      expect(await upload(minted.uploadUrl, xml)).toMatchObject({
        status: 400,
        body: { code: 'VALIDATION_ERROR', details: { reason: 'ARTIFACT_UNREADABLE' } },
      });
    });
  });

  describe('dates and numbers beyond what the columns hold', () => {
    it('GET /chat-sessions?before past the year 9999 bounds nothing, before the year 1 everything: never a 400 or a 500', async () => {
      // Issue 29 item 12: the real product's document lists no 400 for this route; an instant past what the column
      // holds is clamped to it, as an out-of-range limit is.
      for (const before of ['9000000000000000', '253402300800000', '253402300799999', '9'.repeat(400)]) {
        const reply = await call('GET', `/chat-sessions?before=${before}`);
        expect(reply.status, before).toBe(200);
        expect(reply.body.items.map((s: { title: string }) => s.title)).toEqual(['chat']);
      }
      for (const before of ['-62135596800001', '-9000000000000000']) {
        expect(await call('GET', `/chat-sessions?before=${before}`)).toMatchObject({
          status: 200,
          body: { items: [] },
        });
      }
    });

    it('ingest tokens.input: 1e12 is a 400; the largest int4 is stored as given', async () => {
      const before = await snapshotDatabase(stack.sql);
      const [result] = sampleResults(1);
      const tooMany = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'big',
        externalRunId: 'big-1',
        results: [{ ...result, tokens: { input: 1e12 } }],
      });
      expectValidationError(tooMany, /results\.0\.tokens\.input/);
      const sum = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'big',
        externalRunId: 'big-1',
        results: [{ ...result, tokens: { input: 2 ** 31 - 1, output: 1 } }],
      });
      expectValidationError(sum, /results\.0\.tokens/);
      const slow = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'big',
        externalRunId: 'big-1',
        results: [{ ...result, durationMs: 2 ** 31 }],
      });
      expectValidationError(slow, /results\.0\.durationMs/);
      expect(await snapshotDatabase(stack.sql)).toEqual(before);

      const largest = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'big',
        externalRunId: 'big-2',
        results: [
          {
            ...result,
            durationMs: 2 ** 31 - 1,
            tokens: { input: 2 ** 31 - 1, output: 2 ** 31 - 1, total: 2 ** 31 - 1 },
          },
        ],
      });
      expect(largest.status).toBe(200);
      const { body: page } = await call('GET', `/projects/${org.projectId}/eval-runs/${largest.body.runId}/iterations`);
      expect(page.items[0]).toMatchObject({
        durationMs: 2 ** 31 - 1,
        usage: { inputTokens: 2 ** 31 - 1, outputTokens: 2 ** 31 - 1, totalTokens: 2 ** 31 - 1 },
      });
    });

    it('a Jest duration or a JUnit time past what the duration column holds is a 400 naming the test', async () => {
      const jest = JSON.parse(artifact('jest.json'));
      jest.testResults[0].assertionResults[1].duration = 1e12;
      const { body: minted } = await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, {
        format: 'jest-json',
      });
      const reply = await upload(minted.uploadUrl, JSON.stringify(jest));
      expect(reply).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          message: expect.stringContaining('testResults[0].assertionResults[1].duration'),
        },
      });

      const { body: junit } = await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, {
        format: 'junit-xml',
      });
      const xml = '<testsuites><testsuite name="s"><testcase name="t" time="1e12"/></testsuite></testsuites>';
      const slow = await upload(junit.uploadUrl, xml);
      expect(slow).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          message: expect.stringContaining('testsuites[0].testsuite[0].testcase[0].@time'),
        },
      });
    });
  });

  describe('lone surrogates', () => {
    it('in ingest metadata: a 400 that names the field, and nothing stored', async () => {
      const before = await snapshotDatabase(stack.sql);
      const [result] = sampleResults(1);
      const body = JSON.stringify({
        suiteName: 'surrogates',
        externalRunId: 'sur-1',
        results: [{ ...result, metadata: { note: '@' } }],
      }).replace('"@"', '"\\ud800"');
      const reply = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, body);
      expectValidationError(reply, /results\.0\.metadata\.note: .*lone surrogate/);
      expect(await snapshotDatabase(stack.sql)).toEqual(before);
    });

    it('in a host systemPrompt, and in an object key: a 400', async () => {
      const config = { ...templateConfig('claude'), systemPrompt: 'be brief \ud83d' };
      expectValidationError(
        await call('POST', `/projects/${org.projectId}/hosts`, { name: 'h', config }),
        /config\.systemPrompt: .*lone surrogate/,
      );
      const key = JSON.stringify({ toolName: 'echo', parameters: { '\udc00': 1 } });
      expectValidationError(
        await call('POST', `/projects/${org.projectId}/servers/${serverId}/tools/call`, key),
        /parameters: .*lone surrogate/,
      );
    });

    it('a well-formed pair (an emoji) and other multi-byte text are stored as given', async () => {
      const config = { ...templateConfig('claude'), systemPrompt: 'sois bref 😀 — 日本語' };
      const created = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'émoji 😀', config });
      expect(created.status).toBe(201);
      expect((await call('GET', `/projects/${org.projectId}/hosts/${created.body.id}`)).body).toMatchObject({
        name: 'émoji 😀',
        config: { systemPrompt: config.systemPrompt },
      });
    });

    it('in an uploaded report (text a test framework wrote) are stored as U+FFFD, like NUL', async () => {
      const report = JSON.parse(artifact('vitest.json'));
      report.testResults[1].assertionResults[1].failureMessages = ['AssertionError: expected "\ud83d" to be "ok"'];
      const { body: minted } = await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, {
        format: 'vitest-json',
      });
      const reply = await upload(minted.uploadUrl, JSON.stringify(report));
      expect(reply.status).toBe(200);
      const { body: page } = await call('GET', `/projects/${org.projectId}/eval-runs/${reply.body.runId}/iterations`);
      const failed = page.items.find((i: { title: string }) => i.title === 'weather tools reports the low temperature');
      expect(failed.error).toBe('AssertionError: expected "\uFFFD" to be "ok"');
    });
  });

  describe('long text in an indexed identity', () => {
    // Random text does not compress: 20,000 characters once overflowed the btree entry of the (suite, title, query)
    // unique index (at most 2,704 bytes), so the case was not stored and Postgres' error came back in the reply.
    const longQuery = Array.from({ length: 20_000 }, (_, i) =>
      String.fromCharCode(0x4e00 + ((i * 7919) % 20_000)),
    ).join('');

    it('a case with a 20,000-character query is stored, authored or reported', async () => {
      const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
        name: 'long prompts',
        serverIds: [serverId],
        model: 'openai/gpt-4.1',
        tests: [{ title: 'long', query: longQuery }],
      });
      expect(suite.status).toBe(201);
      expect(suite.body.caseUpsert).toEqual({ committed: [{ id: expect.any(String), name: 'long' }], failed: [] });

      const [result] = sampleResults(1);
      const reported = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
        suiteName: 'long reported',
        externalRunId: 'long-1',
        results: [{ ...result, caseTitle: 'long', query: longQuery }],
      });
      expect(reported.status).toBe(200);
      const { body: page } = await call(
        'GET',
        `/projects/${org.projectId}/eval-runs/${reported.body.runId}/iterations`,
      );
      expect(page.items[0].testCaseId).toEqual(expect.any(String));
      const [row] = await stack.sql`SELECT query FROM eval_cases WHERE id = ${page.items[0].testCaseId}`;
      expect(row.query).toBe(longQuery);
    });

    it('the same long title and query reported again are the same case', async () => {
      const [result] = sampleResults(1);
      const caseOf = async (externalRunId: string) => {
        const reported = await call('POST', `/projects/${org.projectId}/eval-ingest/report`, {
          suiteName: 'long again',
          externalRunId,
          results: [{ ...result, caseTitle: 'long', query: longQuery }],
        });
        return (await call('GET', `/projects/${org.projectId}/eval-runs/${reported.body.runId}/iterations`)).body
          .items[0].testCaseId;
      };
      const ids = [await caseOf('again-1'), await caseOf('again-2')];
      expect(ids[0]).toEqual(expect.any(String));
      expect(ids[1]).toBe(ids[0]);
    });
  });

  describe('requests Node itself refuses', () => {
    it('a URL past the 16 KB header limit gets the envelope (400), not a bare status line', async () => {
      const response = await fetch(`${stack.baseUrl}/chat-sessions?cursor=${'%C3%A9'.repeat(4_000)}`, {
        headers: { authorization: `Bearer ${org.apiKey}` },
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('16 KB'),
        details: { reason: 'REQUEST_HEADERS_TOO_LARGE' },
      });
    });
  });

  describe('wrong types inside a Jest report', () => {
    const mintJest = async () =>
      (await call('POST', `/projects/${org.projectId}/eval-ingest/artifacts/upload-url`, { format: 'jest-json' })).body
        .uploadUrl as string;

    it('name: 5 is a 400 naming the field; the URL stays usable', async () => {
      const url = await mintJest();
      const report = JSON.parse(artifact('jest.json'));
      report.testResults[1].name = 5;
      const reply = await upload(url, JSON.stringify(report));
      expect(reply).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          message: expect.stringMatching(/testResults\[1\]\.name: .*expected string/),
          details: { reason: 'ARTIFACT_INVALID', format: 'jest-json' },
        },
      });
      expect(reply.body.details.issues[0]).toEqual({
        path: 'testResults[1].name',
        message: expect.stringContaining('expected string'),
      });
      expect((await upload(url, artifact('jest.json'))).status).toBe(200);
    });

    it('assertionResults: [null] is a 400 naming the element', async () => {
      const report = JSON.parse(artifact('jest.json'));
      report.testResults[0].assertionResults = [null];
      const reply = await upload(await mintJest(), JSON.stringify(report));
      expect(reply).toMatchObject({
        status: 400,
        body: {
          code: 'VALIDATION_ERROR',
          message: expect.stringMatching(/testResults\[0\]\.assertionResults\[0\]: .*expected object/),
        },
      });
    });
  });
});
