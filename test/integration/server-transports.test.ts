import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostOnlyServer, type PostOnlyFixture } from '../fixtures/mcp/post-only.js';
import { startResumableServer, type ResumableFixture } from '../fixtures/mcp/resumable.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Streamable HTTP as servers really serve it: POST-only and stateless servers, and servers that poll (SEP-1699). */
describe('streamable HTTP servers that refuse the GET stream or close response streams early', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let stateful: PostOnlyFixture;
  let stateless: PostOnlyFixture;
  let resumable: ResumableFixture;
  let neverAnswers: ResumableFixture;
  let slowRetry: ResumableFixture;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) =>
    call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);
  const echo = (server: string, text: string) => op(server, 'tools/call', { toolName: 'echo', parameters: { text } });

  beforeAll(async () => {
    [stack, stateful, stateless, resumable, neverAnswers, slowRetry] = await Promise.all([
      startTestStack({
        worker: false,
        config: {
          RATE_LIMIT_BURST: '10000',
          RATE_LIMIT_PER_MINUTE: '600000',
          MCP_RESUME_MAX_ATTEMPTS: '3',
          MCP_RESUME_MAX_DELAY_MS: '2000',
        },
      }),
      startPostOnlyServer({ mode: 'stateful' }),
      startPostOnlyServer({ mode: 'stateless' }),
      startResumableServer({ answer: 'deliver' }),
      startResumableServer({ answer: 'never' }),
      startResumableServer({ answer: 'deliver', closing: 'tool-calls', retryMs: 60_000 }),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const save = async (name: string, url: string, timeouts?: Record<string, number>) =>
      (servers[name] = await saveServer(stack.sql, stack.box, {
        projectId: org.projectId,
        name,
        transportType: 'http',
        url,
        timeouts,
      } as never));
    await Promise.all([
      save('stateful', stateful.url),
      save('stateless', stateless.url),
      save('resumable', resumable.url),
      save('never-answers', neverAnswers.url, { requestMs: 20_000 }),
      save('slow-retry', slowRetry.url, { requestMs: 20_000 }),
      save('slow-retry-short-timeout', slowRetry.url, { requestMs: 500 }),
    ]);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([stateful, stateless, resumable, neverAnswers, slowRetry].map((f) => f?.close()));
  });

  it.each(['stateful', 'stateless'] as const)(
    'a %s POST-only server (GET 404): 40 tools list/call requests all succeed, each call executed once',
    async (name) => {
      const fixture = name === 'stateful' ? stateful : stateless;
      const before = fixture.stats.toolCalls;
      const replies = [];
      for (let i = 0; i < 20; i++) {
        replies.push(await op(name, 'tools'));
        replies.push(await op(name, 'tools/call', { toolName: 'add', parameters: { a: i, b: 1 } }));
      }
      expect(replies.map((r) => r.status)).toEqual(Array(40).fill(200));
      expect(replies.filter((_, i) => i % 2 === 1).map((r) => r.body.content[0].text)).toEqual(
        Array.from({ length: 20 }, (_, i) => String(i + 1)),
      );
      expect(fixture.stats.toolCalls - before).toBe(20);
      // The server did refuse the stream: the session survived it.
      expect(fixture.stats.refused).toBeGreaterThan(0);
    },
  );

  it('concurrent calls on one POST-only session all succeed', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        op('stateful', 'tools/call', { toolName: 'echo', parameters: { text: `n${i}` } }),
      ),
    );
    expect(replies.map((r) => [r.status, r.body.content?.[0]?.text])).toEqual(
      Array.from({ length: 20 }, (_, i) => [200, `n${i}`]),
    );
  });

  it('a server that closes every response stream after its priming event: the answers arrive on the resumed streams', async () => {
    const before = resumable.stats.resumptions;
    expect((await op('resumable', 'validate')).body).toMatchObject({
      success: true,
      initInfo: { transport: 'streamable-http' },
    });
    const replies = [];
    for (let i = 0; i < 10; i++) {
      replies.push(await op('resumable', 'tools'));
      replies.push(await echo('resumable', `r${i}`));
    }
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(replies.filter((_, i) => i % 2 === 1).map((r) => r.body.content[0].text)).toEqual(
      Array.from({ length: 10 }, (_, i) => `r${i}`),
    );
    expect(replies[0].body.items.map((t: { name: string }) => t.name)).toEqual(['echo']);
    // Every one of them was resumed (GET + Last-Event-ID), the initialize included.
    expect(resumable.stats.resumptions - before).toBeGreaterThanOrEqual(21);
  });

  it('a server that never delivers: 502 STREAM_LOST after the maximum number of resumptions, then a new session', async () => {
    const before = neverAnswers.stats.resumptions;
    const reply = await echo('never-answers', 'x');
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'STREAM_LOST', phase: 'request', resumptions: 3 },
    });
    expect(reply.body.message).toContain('resumed 3 times in a row without delivering anything');
    expect(neverAnswers.stats.resumptions - before).toBe(3);
    // The session's other work is unaffected, and the next call fails the same way, not worse.
    expect((await op('never-answers', 'tools')).status).toBe(200);
    expect((await echo('never-answers', 'y')).body.details.reason).toBe('STREAM_LOST');
  });

  it('a server that asks to wait longer than the maximum delay: 502 STREAM_LOST at the bound, or 504 if the request times out first', async () => {
    const reply = await echo('slow-retry', 'x');
    expect(reply.status).toBe(502);
    expect(reply.body).toMatchObject({
      code: 'SERVER_UNREACHABLE',
      details: { reason: 'STREAM_LOST', phase: 'request' },
    });
    expect(reply.body.message).toContain('not resumed within 2000 ms (the server asked to wait 60000 ms)');
    expect(slowRetry.stats.resumptions).toBe(0);

    const timedOut = await echo('slow-retry-short-timeout', 'x');
    expect(timedOut.status).toBe(504);
    expect(timedOut.body).toMatchObject({ code: 'TIMEOUT', details: { phase: 'request' } });
  });
});
