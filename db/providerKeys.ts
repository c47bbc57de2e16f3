import type { Db } from './connection.js';
import type { SecretBox } from '../domain/ports/secretBox.js';

export interface ProviderKey {
  apiKey: string;
  baseUrl?: string;
}

/** The organization's configured model providers; hosted catalog models run on these. */
export async function setProviderKey(
  sql: Db,
  box: SecretBox,
  input: { organizationId: string; provider: string; apiKey: string; baseUrl?: string | null },
) {
  await sql`
    INSERT INTO provider_keys (organization_id, provider, api_key_enc, base_url)
    VALUES (${input.organizationId}, ${input.provider}, ${box.encrypt(input.apiKey)}, ${input.baseUrl ?? null})
    ON CONFLICT (organization_id, provider)
    DO UPDATE SET api_key_enc = EXCLUDED.api_key_enc, base_url = EXCLUDED.base_url, updated_at = clock_timestamp()`;
}

export async function getProviderKeys(
  sql: Db,
  box: SecretBox,
  organizationId: string,
): Promise<Record<string, ProviderKey>> {
  const rows = await sql<{ provider: string; api_key_enc: string; base_url: string | null }[]>`
    SELECT provider, api_key_enc, base_url FROM provider_keys WHERE organization_id = ${organizationId}`;
  return Object.fromEntries(
    rows.map((r) => [
      r.provider,
      { apiKey: box.decrypt(r.api_key_enc), ...(r.base_url ? { baseUrl: r.base_url } : {}) },
    ]),
  );
}
