import { createCipheriv, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { templateConfig } from '../../api/hostTemplates.js';
import { createHost, findHostHeaders } from '../../db/hosts.js';
import { environmentKeySource, Keyring, recordedKeys, type KeySource } from '../../db/keyring.js';
import { getProviderKeys, setProviderKey } from '../../db/providerKeys.js';
import { rekeySecrets, secretsByKey } from '../../db/rekey.js';
import { createServer, getSavedServersByIds } from '../../db/servers.js';
import { checkSecretsAtStart } from '../../db/startupCheck.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { seedOrganization } from '../helpers/seed.js';

const A = Keyring.generateKey();
const B = Keyring.generateKey();
const C = Keyring.generateKey();
const ring = (setting: string) => Keyring.fromSetting(setting);
const idOf = (key: string) => ring(key).newest.id;
const fileSource: KeySource = {
  name: 'the key file /srv/runway/.data/encryption.key',
  fix: 'Put that key in /srv/runway/.data/encryption.key.',
};

/** A secret as Runway sealed it before keys had ids: `v1.<iv>.<tag>.<ciphertext>`. */
function sealV1(key: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

describe('encryption keys and the database', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => db?.drop());

  it('the first process records its key; a process with another key is refused, with a message naming the setting', async () => {
    expect(await checkSecretsAtStart(db.sql, ring(A), environmentKeySource)).toMatchObject({
      firstRecord: true,
      warnings: [],
    });
    expect(await recordedKeys(db.sql)).toEqual([
      { id: idOf(A), fingerprint: ring(A).newest.fingerprint, recordedAt: expect.any(Date), retiredAt: null },
    ]);
    // The record never holds the key itself.
    expect(JSON.stringify(await db.sql`SELECT * FROM encryption_keys`)).not.toContain(A);

    await expect(checkSecretsAtStart(db.sql, ring(B), environmentKeySource)).rejects.toThrow(
      new RegExp(
        `^RUNWAY_ENCRYPTION_KEY does not hold the key this database's secrets are sealed with \\(key id ${idOf(A)}.*Set RUNWAY_ENCRYPTION_KEY to that key`,
      ),
    );
    await expect(checkSecretsAtStart(db.sql, ring(B), fileSource)).rejects.toThrow(
      /^the key file \/srv\/runway\/\.data\/encryption\.key does not hold the key.*Put that key in/,
    );
    expect(await recordedKeys(db.sql)).toHaveLength(1);
    expect(await checkSecretsAtStart(db.sql, ring(A), environmentKeySource)).toMatchObject({
      firstRecord: false,
      warnings: [],
    });
  });

  it('a database written before keys were recorded (v1 envelopes) records the key that opens its secrets and refuses any other', async () => {
    const org = await seedOrganization(db.sql);
    await db.sql`
      INSERT INTO servers (id, project_id, name, transport_type, url, headers_enc)
      VALUES ('srv_old', ${org.projectId}, 'old', 'http', 'https://old.example/mcp', ${sealV1(A, JSON.stringify({ 'x-api-key': 'v1-secret' }))})`;

    await expect(checkSecretsAtStart(db.sql, ring(B), environmentKeySource)).rejects.toThrow(
      /a secret in servers\.headers_enc opens with none of/,
    );
    expect(await recordedKeys(db.sql)).toEqual([]);

    expect(await checkSecretsAtStart(db.sql, ring(A), environmentKeySource)).toMatchObject({
      firstRecord: true,
      warnings: [],
    });
    expect((await recordedKeys(db.sql)).map((k) => k.id)).toEqual([idOf(A)]);
    expect((await getSavedServersByIds(db.sql, ring(A), org.projectId, ['srv_old']))[0].headers).toEqual({
      'x-api-key': 'v1-secret',
    });
  });

  it('rotation: "B,A" opens everything sealed with A; rekey re-seals it all in resumable batches; then "B" alone opens everything', async () => {
    const org = await seedOrganization(db.sql);
    const a = ring(A);
    await checkSecretsAtStart(db.sql, a, environmentKeySource);

    // Every kind of secret, sealed with A: 11 in all (the plain host header is sealed at the next start).
    const stdio = await createServer(db.sql, a, {
      projectId: org.projectId,
      name: 'local',
      transportType: 'stdio',
      command: 'node',
      env: { TOKEN: 'env-secret' },
    });
    const http = await createServer(db.sql, a, {
      projectId: org.projectId,
      name: 'remote',
      transportType: 'http',
      url: 'https://remote.example/mcp',
      headers: { 'x-api-key': 'header-secret' },
      useOAuth: true,
      oauthClientId: 'cid',
      clientSecret: 'client-secret',
    });
    await db.sql`
      INSERT INTO oauth_tokens (server_id, server_url, access_token_enc, refresh_token_enc, client_secret_enc)
      VALUES (${http.id}, 'https://remote.example/mcp', ${a.encrypt('access-token')}, ${a.encrypt('refresh-token')}, ${a.encrypt('token-client-secret')})`;
    await setProviderKey(db.sql, a, { organizationId: org.organizationId, provider: 'openai', apiKey: 'sk-openai' });
    await db.sql`INSERT INTO provider_keys (organization_id, provider, api_key_enc) VALUES (${org.organizationId}, 'google', ${sealV1(A, 'google-v1-key')})`;
    await db.sql`INSERT INTO eval_suites (id, project_id, name, server_ids) VALUES ('sui_rot', ${org.projectId}, 'rot', ${[http.id]})`;
    await db.sql`
      INSERT INTO eval_runs (id, suite_id, project_id, organization_id, run_number, status, model_keys_enc)
      VALUES ('run_rot', 'sui_rot', ${org.projectId}, ${org.organizationId}, 1, 'running', ${a.encryptJson({ openai: 'sk-run' })})`;
    const hostConfig = templateConfig('mcpjam');
    hostConfig.connectionDefaults.headers = { authorization: 'Bearer host-secret' };
    const host = await createHost(db.sql, a, {
      projectId: org.projectId,
      name: 'h',
      template: null,
      config: hostConfig,
    });
    // A host saved before header values were sealed: the next start seals it (with the newest key of that process).
    await db.sql`INSERT INTO hosts (id, project_id, name, config) VALUES ('host_plain', ${org.projectId}, 'plain', ${db.sql.json({ ...hostConfig, connectionDefaults: { headers: { 'x-plain': 'plain-secret' }, requestTimeoutMs: 60_000 } } as never)})`;

    const readAll = async (box: Keyring) => {
      const servers = await getSavedServersByIds(db.sql, box, org.projectId, [stdio.id, http.id]);
      const [tokens] = await db.sql<
        { access_token_enc: string; refresh_token_enc: string; client_secret_enc: string }[]
      >`SELECT * FROM oauth_tokens`;
      const [run] = await db.sql<
        { model_keys_enc: string }[]
      >`SELECT model_keys_enc FROM eval_runs WHERE id = 'run_rot'`;
      return {
        servers: Object.fromEntries(
          servers.map((s) => [s.name, { env: s.env, headers: s.headers, clientSecret: s.clientSecret }]),
        ),
        tokens: [tokens.access_token_enc, tokens.refresh_token_enc, tokens.client_secret_enc].map((v) =>
          box.decrypt(v),
        ),
        providers: await getProviderKeys(db.sql, box, org.organizationId),
        run: box.decryptJson(run.model_keys_enc, {}),
        hosts: [
          await findHostHeaders(db.sql, box, org.projectId, host.id),
          await findHostHeaders(db.sql, box, org.projectId, 'host_plain'),
        ],
      };
    };
    const everything = {
      servers: {
        local: { env: { TOKEN: 'env-secret' }, headers: {}, clientSecret: null },
        remote: { env: {}, headers: { 'x-api-key': 'header-secret' }, clientSecret: 'client-secret' },
      },
      tokens: ['access-token', 'refresh-token', 'token-client-secret'],
      providers: { openai: { apiKey: 'sk-openai' }, google: { apiKey: 'google-v1-key' } },
      run: { openai: 'sk-run' },
      hosts: [{ authorization: 'Bearer host-secret' }, { 'x-plain': 'plain-secret' }],
    };
    expect(await checkSecretsAtStart(db.sql, a, environmentKeySource)).toMatchObject({ hostsSealed: 1, warnings: [] });
    expect(await readAll(a)).toEqual(everything);

    // "B,A": starts with a warning, opens everything, seals new secrets with B.
    const ba = ring(`${B}, ${A}`);
    const started = await checkSecretsAtStart(db.sql, ba, environmentKeySource);
    expect(started.warnings).toEqual([
      expect.stringMatching(new RegExp(`older key ${idOf(A)}.*npm run -s admin -- secrets rekey`)),
    ]);
    expect(await readAll(ba)).toEqual(everything);
    await setProviderKey(db.sql, ba, { organizationId: org.organizationId, provider: 'anthropic', apiKey: 'sk-ant' });
    const [anthropic] = await db.sql`SELECT api_key_enc FROM provider_keys WHERE provider = 'anthropic'`;
    expect(anthropic.api_key_enc.startsWith(`v2.${idOf(B)}.`)).toBe(true);
    const withAnthropic = { ...everything, providers: { ...everything.providers, anthropic: { apiKey: 'sk-ant' } } };

    // Neither key alone will do now: A's secrets need A, and B seals new ones.
    await expect(checkSecretsAtStart(db.sql, ring(B), environmentKeySource)).rejects.toThrow(`key id ${idOf(A)}`);
    await expect(checkSecretsAtStart(db.sql, ring(A), environmentKeySource)).rejects.toThrow(`key id ${idOf(B)}`);

    // Interrupted twice (a batch limit stands in for a kill between committed batches), then finished.
    const first = await rekeySecrets(db.sql, ba, { batchSize: 2, maxBatches: 2 });
    expect(first).toMatchObject({ complete: false, retired: [], remaining: 11 - first.resealed });
    expect(first.resealed).toBeGreaterThanOrEqual(2);
    const second = await rekeySecrets(db.sql, ba, { batchSize: 1, maxBatches: 1 });
    expect(second).toMatchObject({ complete: false, remaining: 11 - first.resealed - second.resealed });
    expect(await readAll(ba)).toEqual(withAnthropic);
    const last = await rekeySecrets(db.sql, ba, { batchSize: 3 });
    expect(last).toMatchObject({ complete: true, remaining: 0, retired: [idOf(A)], keyId: idOf(B) });
    expect(first.resealed + second.resealed + last.resealed).toBe(11);
    expect(Object.values(await secretsByKey(db.sql)).flatMap((byKey) => Object.keys(byKey))).toEqual(
      expect.arrayContaining([idOf(B)]),
    );
    expect(new Set(Object.values(await secretsByKey(db.sql)).flatMap((byKey) => Object.keys(byKey)))).toEqual(
      new Set([idOf(B)]),
    );

    expect(await rekeySecrets(db.sql, ba)).toMatchObject({ complete: true, resealed: 0, retired: [] });
    expect(await checkSecretsAtStart(db.sql, ba, environmentKeySource)).toMatchObject({ warnings: [] });
    expect(await checkSecretsAtStart(db.sql, ring(B), environmentKeySource)).toMatchObject({ warnings: [] });
    expect(await readAll(ring(B))).toEqual(withAnthropic);
    await expect(checkSecretsAtStart(db.sql, ring(A), environmentKeySource)).rejects.toThrow(`key id ${idOf(B)}`);
  });

  it('rekey stops at a secret no held key opens, says where, and retires nothing', async () => {
    const org = await seedOrganization(db.sql);
    await checkSecretsAtStart(db.sql, ring(A), environmentKeySource);
    await setProviderKey(db.sql, ring(A), { organizationId: org.organizationId, provider: 'openai', apiKey: 'sk-a' });
    await setProviderKey(db.sql, ring(C), {
      organizationId: org.organizationId,
      provider: 'zzz',
      apiKey: 'sealed with a key nobody holds',
    });

    const ba = ring(`${B},${A}`);
    await checkSecretsAtStart(db.sql, ba, environmentKeySource);
    await expect(rekeySecrets(db.sql, ba)).rejects.toThrow(
      `cannot open the secret in provider_keys.api_key_enc (organization_id=${org.organizationId}, provider=zzz)`,
    );
    expect((await recordedKeys(db.sql)).map((k) => [k.id, k.retiredAt])).toEqual(
      expect.arrayContaining([
        [idOf(A), null],
        [idOf(B), null],
      ]),
    );
    expect(await getProviderKeys(db.sql, ring(`${B},${A},${C}`), org.organizationId)).toEqual({
      openai: { apiKey: 'sk-a' },
      zzz: { apiKey: 'sealed with a key nobody holds' },
    });
  });
});
