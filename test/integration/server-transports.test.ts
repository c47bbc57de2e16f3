import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostOnlyServer, type PostOnlyFixture } from '../fixtures/mcp/post-only.js';
import { apiClient } from '../helpers/http.js';
import { saveServer } from '../helpers/mcpServers.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/** Streamable HTTP as servers really serve it: POST-only and stateless servers. */
describe('streamable HTTP servers that refuse the optional GET stream', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;
  let stateful: PostOnlyFixture;
  let stateless: PostOnlyFixture;
  const servers: Record<string, string> = {};
  const op = (server: string, suffix: string, body: unknown = {}) => call('POST', `/projects/${org.projectId}/servers/${servers[server]}/${suffix}`, body);

  beforeAll(async () => {
    [stack, stateful, stateless] = await Promise.all([
      startTestStack({ worker: false, config: { RATE_LIMIT_BURST: '10000', RATE_LIMIT_PER_MINUTE: '600000' } }),
      startPostOnlyServer({ mode: 'stateful' }),
      startPostOnlyServer({ mode: 'stateless' }),
    ]);
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    for (const [name, fixture] of [['stateful', stateful], ['stateless', stateless]] as const) {
      servers[name] = await saveServer(stack.sql, stack.box, { projectId: org.projectId, name, transportType: 'http', url: fixture.url });
    }
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([stateful?.close(), stateless?.close()]);
  });

  it.each(['stateful', 'stateless'] as const)('a %s POST-only server (GET 404): 40 tools list/call requests all succeed, each call executed once', async (name) => {
    const fixture = name === 'stateful' ? stateful : stateless;
    const before = fixture.stats.toolCalls;
    const replies = [];
    for (let i = 0; i < 20; i++) {
      replies.push(await op(name, 'tools'));
      replies.push(await op(name, 'tools/call', { toolName: 'add', parameters: { a: i, b: 1 } }));
    }
    expect(replies.map((r) => r.status)).toEqual(Array(40).fill(200));
    expect(replies.filter((_, i) => i % 2 === 1).map((r) => r.body.content[0].text)).toEqual(Array.from({ length: 20 }, (_, i) => String(i + 1)));
    expect(fixture.stats.toolCalls - before).toBe(20);
    // The server did refuse the stream: the session survived it.
    expect(fixture.stats.refused).toBeGreaterThan(0);
  });

  it('concurrent calls on one POST-only session all succeed', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => op('stateful', 'tools/call', { toolName: 'echo', parameters: { text: `n${i}` } })));
    expect(replies.map((r) => [r.status, r.body.content?.[0]?.text])).toEqual(Array.from({ length: 20 }, (_, i) => [200, `n${i}`]));
  });
});
