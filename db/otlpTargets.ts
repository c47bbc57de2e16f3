import type { Db } from './connection.js';
import type { SecretBox } from '../domain/ports/secretBox.js';
import type { OtlpTarget, OtlpTargetStore } from '../domain/ports/otlpTargets.js';

/** Organizations' OTLP targets (migration 069): the endpoint and the headers sealed with the secret box. */
export function createOtlpTargetStore(sql: Db, box: SecretBox): OtlpTargetStore {
  return {
    async get(organizationId) {
      const [row] = await sql<{ endpoint_enc: string; headers_enc: string }[]>`
        SELECT endpoint_enc, headers_enc FROM organization_otel_exports WHERE organization_id = ${organizationId}`;
      if (!row) return undefined;
      return {
        endpoint: box.decrypt(row.endpoint_enc),
        headers: box.decryptJson<Record<string, string>>(row.headers_enc, {}),
      } satisfies OtlpTarget;
    },
    async set(organizationId, target) {
      const endpoint = box.encrypt(target.endpoint);
      const headers = box.encryptJson(target.headers);
      await sql`
        INSERT INTO organization_otel_exports (organization_id, endpoint_enc, headers_enc)
        VALUES (${organizationId}, ${endpoint}, ${headers})
        ON CONFLICT (organization_id) DO UPDATE
          SET endpoint_enc = EXCLUDED.endpoint_enc, headers_enc = EXCLUDED.headers_enc, updated_at = clock_timestamp()`;
    },
    async clear(organizationId) {
      const deleted = await sql`DELETE FROM organization_otel_exports WHERE organization_id = ${organizationId}`;
      return deleted.count > 0;
    },
  };
}
