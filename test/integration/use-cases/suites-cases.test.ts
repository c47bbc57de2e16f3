import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaseBody, updateCaseBody } from '../../../api/schemas/cases.js';
import { createSuiteBody } from '../../../api/schemas/evals.js';
import { SecretBox } from '../../../db/secretBox.js';
import { createServer } from '../../../db/servers.js';
import { createSuiteStore } from '../../../db/suiteStore.js';
import type { McpOperations } from '../../../domain/mcp/index.js';
import type { ServerDirectory } from '../../../domain/ports/serverDirectory.js';
import type { SuiteStore } from '../../../domain/ports/suiteStore.js';
import type { Principal } from '../../../domain/principal.js';
import { addCase } from '../../../domain/useCases/suites/addCase.js';
import { createSuite } from '../../../domain/useCases/suites/createSuite.js';
import { deleteCase } from '../../../domain/useCases/suites/deleteCase.js';
import { editCase } from '../../../domain/useCases/suites/editCase.js';
import { generateCases } from '../../../domain/useCases/suites/generateCases.js';
import { getCase } from '../../../domain/useCases/suites/getCase.js';
import { listCases } from '../../../domain/useCases/suites/listCases.js';
import { createServerDirectory } from '../../../db/serverDirectory.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';

// The case stories (domain/useCases/suites), run without HTTP on a fresh database, with a fake MCP client.

const principalOf = (org: SeededOrganization): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

/** An MCP client whose every server lists one tool, `echo`. */
const mcp = {
  listAllTools: async () => [{ name: 'echo', description: 'echoes', inputSchema: { type: 'object' } }],
} as unknown as McpOperations;

describe('case use cases', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let principal: Principal;
  let serverId: string;
  let suiteId: string;
  let echoCaseId: string;
  let suites: SuiteStore;
  let suiteServers: ServerDirectory;
  const box = SecretBox.fromSetting(SecretBox.generateKey());
  const deps = () => ({ suites, servers: suiteServers, mcp });
  const ids = () => ({ principal, projectId: org.projectId, suiteId });

  beforeAll(async () => {
    db = await createTestDatabase();
    suites = createSuiteStore(db.sql, box);
    suiteServers = createServerDirectory(db.sql, box);
    org = await seedOrganization(db.sql);
    principal = principalOf(org);
    serverId = (
      await createServer(db.sql, box, {
        projectId: org.projectId,
        name: 'local',
        transportType: 'stdio',
        command: '/bin/true',
      })
    ).id;
    const created = await createSuite(deps())({
      principal,
      projectId: org.projectId,
      suite: createSuiteBody.parse({
        name: 'Cases',
        serverIds: [serverId],
        model: 'openai/gpt-4.1-mini',
        tests: [{ title: 'echo', query: 'echo hi', expectedToolCalls: ['echo'] }],
      }),
    });
    suiteId = created.suiteId;
    echoCaseId = created.caseUpsert.committed[0].id;
  });
  afterAll(async () => db?.drop());

  it('addCase adds a case with warnings about unknown tools, and refuses a duplicate title and prompt', async () => {
    const added = await addCase(deps())({
      ...ids(),
      case: createCaseBody.parse({ title: 'other', prompt: 'do it', expectedToolCalls: [{ toolName: 'nope' }] }),
    });
    expect(added.case).toMatchObject({ suiteId, title: 'other', query: 'do it' });
    expect(added.warnings).toEqual([expect.objectContaining({ reason: 'UNKNOWN_TOOL', toolName: 'nope' })]);
    await expect(
      addCase(deps())({ ...ids(), case: createCaseBody.parse({ title: 'echo', prompt: 'echo hi' }) }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'DUPLICATE_CASE', caseId: echoCaseId } });
    expect((await listCases({ suites })(ids())).map((c) => c.title)).toEqual(['echo', 'other']);
    expect(await getCase({ suites })({ ...ids(), caseId: added.case.id })).toEqual(added.case);
  });

  it('editCase applies an edit, checks it against the case, and warns only when expectations changed', async () => {
    const edit = editCase(deps());
    const renamed = await edit({ ...ids(), caseId: echoCaseId, changes: updateCaseBody.parse({ title: 'echo 2' }) });
    expect(renamed.case.title).toBe('echo 2');
    expect(renamed.warnings).toEqual([]);
    const expecting = await edit({
      ...ids(),
      caseId: echoCaseId,
      changes: updateCaseBody.parse({ expectedToolCalls: [{ toolName: 'missing' }] }),
    });
    expect(expecting.warnings).toEqual([expect.objectContaining({ toolName: 'missing' })]);
    await expect(
      edit({ ...ids(), caseId: echoCaseId, changes: updateCaseBody.parse({ title: 'other', prompt: 'do it' }) }),
    ).rejects.toMatchObject({ details: { reason: 'DUPLICATE_CASE' } });
    await expect(
      edit({
        ...ids(),
        caseId: echoCaseId,
        changes: updateCaseBody.parse({ turns: [{ prompt: 'first', expectedToolCalls: [] }], prompt: 'not first' }),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(/^body\.prompt: /) });
    await expect(
      edit({ ...ids(), caseId: 'case_nope', changes: updateCaseBody.parse({ title: 'x' }) }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND', details: { caseId: 'case_nope' } });
  });

  it('deleteCase deletes a case once', async () => {
    const { case: added } = await addCase(deps())({
      ...ids(),
      case: createCaseBody.parse({ title: 'gone', prompt: 'soon' }),
    });
    await deleteCase({ suites })({ ...ids(), caseId: added.id });
    await expect(getCase({ suites })({ ...ids(), caseId: added.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(deleteCase({ suites })({ ...ids(), caseId: added.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('generateCases refuses a missing suite, a suite without servers and a model it cannot use, before drafting', async () => {
    const generate = generateCases({ ...deps(), catalog: [] });
    await expect(generate({ ...ids(), suiteId: 'sui_nope', count: 2 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // no key for the suite's model: refused as a run would be
    await expect(generate({ ...ids(), count: 2 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await db.sql`UPDATE eval_suites SET server_ids = '{}' WHERE id = ${suiteId}`;
    await expect(generate({ ...ids(), count: 2 })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'NO_SAVED_SERVER_SELECTION', suiteId },
    });
  });
});
