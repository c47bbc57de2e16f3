import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatbox } from '../../db/catalog.js';
import { setProviderKey } from '../../db/providerKeys.js';
import { createServer } from '../../db/servers.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

/**
 * `updatedAt` is never earlier than `createdAt` (issue 20 item 14): created_at defaults to clock_timestamp() (the
 * insert's own time), so updated_at must not be now() (the transaction's start), neither by default nor on update.
 */
describe('updatedAt >= createdAt', () => {
  let stack: TestStack;
  let org: SeededOrganization;
  let call: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    stack = await startTestStack({
      worker: false,
      config: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_MINUTE: '60000' },
    });
    org = await seedOrganization(stack.sql);
    call = apiClient(stack.baseUrl, org.apiKey);
    const server = await createServer(stack.sql, stack.box, {
      projectId: org.projectId,
      name: 's',
      transportType: 'http',
      url: 'http://127.0.0.1:1/mcp',
    });
    await createChatbox(stack.sql, {
      projectId: org.projectId,
      name: 'box',
      modelId: 'openai/gpt-4.1-mini',
      serverIds: [server.id],
    });
    for (const apiKey of ['first', 'second'])
      await setProviderKey(stack.sql, stack.box, { organizationId: org.organizationId, provider: 'openai', apiKey });
    const host = await call('POST', `/projects/${org.projectId}/hosts`, { name: 'h', template: 'mcpjam' });
    expect(host.status).toBe(201);
    expect((await call('PATCH', `/projects/${org.projectId}/hosts/${host.body.id}`, { name: 'renamed' })).status).toBe(
      200,
    );
    const suite = await call('POST', `/projects/${org.projectId}/eval-suites`, {
      name: 'suite',
      serverIds: [server.id],
      model: 'openai/gpt-4.1-mini',
      tests: [{ title: 't', query: 'q' }],
    });
    expect(suite.status).toBe(201);
  });
  afterAll(async () => stack?.stop());

  /** Every table with both columns, and how many of its rows have updated_at < created_at. */
  const inversions = async () => {
    const tables = await stack.sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name IN ('created_at', 'updated_at')
      GROUP BY table_name HAVING count(*) = 2 ORDER BY table_name`;
    const counts: Record<string, number> = {};
    for (const { table_name } of tables) {
      const [{ n }] = await stack.sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM ${stack.sql(table_name)} WHERE updated_at < created_at`;
      counts[table_name] = n;
    }
    return counts;
  };

  it("holds for every row written by the product's own statements", async () => {
    const counts = await inversions();
    expect(Object.keys(counts)).toEqual(
      expect.arrayContaining([
        'organizations',
        'users',
        'projects',
        'servers',
        'provider_keys',
        'hosts',
        'chatboxes',
        'eval_suites',
        'eval_cases',
      ]),
    );
    expect(counts).toEqual(Object.fromEntries(Object.keys(counts).map((t) => [t, 0])));
  });

  it("no updated_at defaults to the transaction's start", async () => {
    const defaults = await stack.sql<{ table_name: string; column_default: string }[]>`
      SELECT table_name, column_default FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name = 'updated_at' AND column_default !~* 'clock_timestamp'`;
    expect(defaults).toEqual([]);
  });

  it('holds in every reply that carries both', async () => {
    const replies = await Promise.all([
      call('GET', '/me'),
      call('GET', '/projects'),
      call('GET', `/projects/${org.projectId}/servers`),
      call('GET', `/projects/${org.projectId}/hosts`),
      call('GET', `/projects/${org.projectId}/chatboxes`),
      call('GET', `/projects/${org.projectId}/eval-suites`),
    ]);
    const stamped: Array<{ createdAt: number; updatedAt: number }> = [];
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (value && typeof value === 'object') {
        const record = value as Record<string, unknown>;
        if (typeof record.createdAt === 'number' && typeof record.updatedAt === 'number') stamped.push(record as never);
        Object.values(record).forEach(collect);
      }
    };
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      collect(reply.body);
    }
    expect(stamped.length).toBeGreaterThanOrEqual(6);
    expect(stamped.filter((s) => s.updatedAt < s.createdAt)).toEqual([]);
  });

  it('the migration repairs rows written before it', async () => {
    await stack.sql`UPDATE projects SET updated_at = created_at - interval '1 second' WHERE id = ${org.projectId}`;
    expect((await inversions()).projects).toBe(1);
    const migration = await readFile(new URL('../../db/migrations/021_updated_at_clock.sql', import.meta.url), 'utf8');
    await stack.sql.begin((tx) => tx.unsafe(migration));
    expect((await inversions()).projects).toBe(0);
    const [project] = await stack.sql<
      { same: boolean }[]
    >`SELECT updated_at = created_at AS same FROM projects WHERE id = ${org.projectId}`;
    expect(project.same).toBe(true);
  });
});
