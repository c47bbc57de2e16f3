import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate.js';
import { healthCheck } from '../../workflows/healthCheck.js';
import { apiClient } from '../helpers/http.js';
import { seedOrganization, type SeededOrganization } from '../helpers/seed.js';
import { startTestStack, type TestStack } from '../helpers/stack.js';

describe('the stack', () => {
  let stack: TestStack;
  let org: SeededOrganization;

  beforeAll(async () => {
    stack = await startTestStack();
    org = await seedOrganization(stack.sql);
  });
  afterAll(async () => stack?.stop());

  it('serves the API with bearer keys', async () => {
    const anonymous = await apiClient(stack.baseUrl)('GET', '/me');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: 'UNAUTHORIZED' });

    const me = await apiClient(stack.baseUrl, org.apiKey)('GET', '/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: org.userId, organization: { id: org.organizationId } });
  });

  it('round-trips a workflow through the real Temporal server, a worker and Postgres', async () => {
    const result = await stack.temporal.workflow.execute(healthCheck, {
      taskQueue: stack.taskQueue,
      workflowId: `health-${Date.now()}`,
    });
    expect(Date.parse(result.databaseTime)).not.toBeNaN();
    expect(result.worker).toContain(String(process.pid));
  });

  it('migrations are recorded and re-running them is a no-op', async () => {
    const recorded = await stack.sql<{ name: string }[]>`SELECT name FROM schema_migrations ORDER BY name`;
    expect(recorded.map((r) => r.name)).toContain('001_initial.sql');
    expect(await migrate(stack.sql)).toEqual([]);
    const tables = await stack.sql<{ table_name: string }[]>`
      SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`;
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining([
        'organizations',
        'api_keys',
        'servers',
        'oauth_tokens',
        'eval_runs',
        'eval_iterations',
        'rate_limit_buckets',
      ]),
    );
  });
});
