import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findHostHeaders } from '../../../db/hosts.js';
import { createHostStore } from '../../../db/hostStore.js';
import { SecretBox } from '../../../db/secretBox.js';
import { createServer } from '../../../db/servers.js';
import type { HostStore } from '../../../domain/ports/hostStore.js';
import type { Principal } from '../../../domain/principal.js';
import { createHost } from '../../../domain/useCases/catalog/createHost.js';
import { deleteHost } from '../../../domain/useCases/catalog/deleteHost.js';
import { editHost } from '../../../domain/useCases/catalog/editHost.js';
import { getHost } from '../../../domain/useCases/catalog/getHost.js';
import { listHosts } from '../../../domain/useCases/catalog/listHosts.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { seedOrganization, type SeededOrganization } from '../../helpers/seed.js';

// The host stories (domain/useCases/catalog), run without HTTP on a fresh database.

const principalOf = (org: SeededOrganization): Principal => ({
  keyId: org.keyId,
  userId: org.userId,
  organizationId: org.organizationId,
  orgRole: 'owner',
});

describe('host use cases', () => {
  let db: TestDatabase;
  let org: SeededOrganization;
  let other: SeededOrganization;
  let principal: Principal;
  let stdioServerId: string;
  let hosts: HostStore;
  const box = SecretBox.fromSetting(SecretBox.generateKey());
  const withHeaders = (headers: Record<string, string>, more: Record<string, unknown> = {}) => ({
    modelId: 'openai/gpt-4.1-mini',
    connectionDefaults: { headers },
    ...more,
  });

  beforeAll(async () => {
    db = await createTestDatabase();
    hosts = createHostStore(db.sql, box);
    org = await seedOrganization(db.sql);
    other = await seedOrganization(db.sql);
    principal = principalOf(org);
    stdioServerId = (
      await createServer(db.sql, box, {
        projectId: org.projectId,
        name: 'local',
        transportType: 'stdio',
        command: '/bin/true',
        allowedRoots: ['file:///srv/data'],
      })
    ).id;
  });
  afterAll(async () => db?.drop());

  it('createHost seals header values and shows them redacted; getHost and listHosts show the same', async () => {
    const host = await createHost({ hosts })({
      principal,
      projectId: org.projectId,
      name: 'Claude',
      template: null,
      config: withHeaders({ Authorization: 'Bearer s3cret' }, { serverIds: [stdioServerId] }),
    });
    expect(host).toMatchObject({
      projectId: org.projectId,
      name: 'Claude',
      template: null,
      config: {
        modelId: 'openai/gpt-4.1-mini',
        connectionDefaults: { headers: { Authorization: '[redacted]' } },
        serverIds: [stdioServerId],
      },
    });
    expect(await findHostHeaders(db.sql, box, org.projectId, host.id)).toEqual({ Authorization: 'Bearer s3cret' });
    expect(await getHost({ hosts })({ principal, projectId: org.projectId, hostId: host.id })).toEqual(host);
    expect(await listHosts({ hosts })({ principal, projectId: org.projectId })).toEqual([host]);
  });

  it('createHost refuses servers outside the project, roots outside what they allow, and a marker with nothing stored', async () => {
    const create = createHost({ hosts });
    const input = { principal, projectId: org.projectId, name: 'H', template: null };
    await expect(create({ ...input, config: { serverIds: ['srv_nope', stdioServerId] } })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'config.serverIds: no such server in this project: srv_nope',
      details: { serverIds: ['srv_nope'] },
    });
    await expect(
      create({ ...input, config: { serverIds: [stdioServerId], roots: [{ uri: 'file:///etc' }] } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'ROOT_NOT_ALLOWED', root: 'file:///etc' } });
    await expect(create({ ...input, config: withHeaders({ 'X-Key': '[redacted]' }) })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(
        /^config\.connectionDefaults\.headers: "\[redacted\]" keeps a header's stored value/,
      ),
      details: { headers: ['X-Key'] },
    });
    expect(await listHosts({ hosts })({ principal, projectId: org.projectId })).toHaveLength(1);
  });

  it('editHost renames, keeps a header given as the marker, drops the ones left out; 404 for an unknown host', async () => {
    const host = await createHost({ hosts })({
      principal,
      projectId: org.projectId,
      name: 'Before',
      template: null,
      config: withHeaders({ 'X-Keep': 'kept', 'X-Drop': 'dropped' }),
    });
    const edit = editHost({ hosts });
    const renamed = await edit({ principal, projectId: org.projectId, hostId: host.id, name: 'After' });
    expect(renamed).toMatchObject({ name: 'After', config: host.config });
    const edited = await edit({
      principal,
      projectId: org.projectId,
      hostId: host.id,
      config: withHeaders({ 'x-keep': '[redacted]' }),
    });
    expect(edited.config).toMatchObject({ connectionDefaults: { headers: { 'x-keep': '[redacted]' } } });
    expect(await findHostHeaders(db.sql, box, org.projectId, host.id)).toEqual({ 'x-keep': 'kept' });
    await expect(edit({ principal, projectId: org.projectId, hostId: 'host_nope', name: 'X' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'host not found',
      details: { hostId: 'host_nope' },
    });
  });

  it("deleteHost deletes once; another organization's project is 404 for every story", async () => {
    const host = await createHost({ hosts })({
      principal,
      projectId: org.projectId,
      name: 'Doomed',
      template: 'mcpjam',
      config: {},
    });
    const outsider = { principal: principalOf(other), projectId: org.projectId };
    const projectNotFound = { code: 'NOT_FOUND', message: 'project not found' };
    await expect(deleteHost({ hosts })({ ...outsider, hostId: host.id })).rejects.toMatchObject(projectNotFound);
    await expect(getHost({ hosts })({ ...outsider, hostId: host.id })).rejects.toMatchObject(projectNotFound);
    await expect(listHosts({ hosts })(outsider)).rejects.toMatchObject(projectNotFound);
    await expect(editHost({ hosts })({ ...outsider, hostId: host.id, name: 'Mine now' })).rejects.toMatchObject(
      projectNotFound,
    );

    await deleteHost({ hosts })({ principal, projectId: org.projectId, hostId: host.id });
    await expect(deleteHost({ hosts })({ principal, projectId: org.projectId, hostId: host.id })).rejects.toMatchObject(
      { code: 'NOT_FOUND', message: 'host not found' },
    );
  });
});
