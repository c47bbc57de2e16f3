import { HeadersWithoutValueError, REDACTED, type Host } from '../domain/catalog/host.js';
import type { Db, Sql } from './connection.js';
import { newId } from '../domain/ids.js';
import { camelRow, camelRows, type Camel } from './rows.js';
import type { SecretBox } from '../domain/ports/secretBox.js';

/**
 * Hosts. The config is the host config v2 the caller gave, stored as given (jsonb), with one exception: header values
 * in `connectionDefaults.headers` are secrets, sealed in `headers_enc`, and the stored config keeps only the header
 * names, each with the redaction marker as its value, which is also what callers see. A config that gives the marker
 * for a header keeps that header's stored value (so read-modify-write works).
 */

export type HostHeaders = Record<string, string>;

export interface HostRow {
  id: string;
  project_id: string;
  name: string;
  template: string | null;
  /** the host config v2 (or a config saved before v2): an open object, read only where Runway uses it */
  config: Record<string, unknown>;
  headers_enc: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A host as stored: its header values still sealed (hostHeaders opens them); toHost makes what callers see. */
export type StoredHost = Camel<HostRow>;

type HostConfig = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const headersOf = (config: HostConfig): HostHeaders => {
  const defaults = config.connectionDefaults;
  return isObject(defaults) && isObject(defaults.headers) ? (defaults.headers as HostHeaders) : {};
};

/**
 * The config with every header value replaced by the marker (headers live apart from the rest of the config).
 * Nothing else changes: a config without `connectionDefaults.headers` is returned as it is.
 */
function redactConfig(config: HostConfig): HostConfig {
  const defaults = config.connectionDefaults;
  if (!isObject(defaults) || !isObject(defaults.headers)) return config;
  const headers = Object.fromEntries(Object.keys(defaults.headers).map((name) => [name, REDACTED]));
  return { ...config, connectionDefaults: { ...defaults, headers } };
}

/**
 * The headers a config asks for, with each marker replaced by the stored value of that header (same name, else the
 * same name in another case: header names are case-insensitive). `withoutValue` lists markers with nothing stored.
 */
export function resolveHeaders(
  given: HostHeaders,
  stored: HostHeaders,
): { headers: HostHeaders; withoutValue: string[] } {
  const headers: HostHeaders = {};
  const withoutValue: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (value !== REDACTED) {
      headers[name] = value;
      continue;
    }
    const storedName = name in stored ? name : Object.keys(stored).find((s) => s.toLowerCase() === name.toLowerCase());
    if (storedName === undefined) withoutValue.push(name);
    else headers[name] = stored[storedName];
  }
  return { headers, withoutValue };
}

/** The host as callers see it (the domain's Host): header values redacted. */
export const toHost = (row: StoredHost): Host => ({
  id: row.id,
  projectId: row.projectId,
  name: row.name,
  template: row.template,
  config: redactConfig(row.config),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/**
 * The header values to send. A config written before headers were sealed (or by an older process) still holds plain
 * values: those win, and markers in it stand for the sealed values.
 */
export function hostHeaders(box: SecretBox, row: Pick<StoredHost, 'config' | 'headersEnc'>): HostHeaders {
  return resolveHeaders(headersOf(row.config), box.decryptJson<HostHeaders>(row.headersEnc, {})).headers;
}

const sealHeaders = (box: SecretBox, headers: HostHeaders) =>
  Object.keys(headers).length > 0 ? box.encryptJson(headers) : null;

export async function listHosts(sql: Db, projectId: string): Promise<StoredHost[]> {
  return camelRows(await sql<HostRow[]>`SELECT * FROM hosts WHERE project_id = ${projectId} ORDER BY created_at, id`);
}

export async function findHost(sql: Db, projectId: string, hostId: string): Promise<StoredHost | undefined> {
  const [row] = await sql<HostRow[]>`SELECT * FROM hosts WHERE id = ${hostId} AND project_id = ${projectId}`;
  return camelRow(row);
}

/** The header values of a host, decrypted (undefined when there is no such host). */
export async function findHostHeaders(
  sql: Db,
  box: SecretBox,
  projectId: string,
  hostId: string,
): Promise<HostHeaders | undefined> {
  const row = await findHost(sql, projectId, hostId);
  return row && hostHeaders(box, row);
}

export async function createHost(
  sql: Db,
  box: SecretBox,
  input: { projectId: string; name: string; template: string | null; config: HostConfig },
): Promise<StoredHost> {
  const { headers, withoutValue } = resolveHeaders(headersOf(input.config), {});
  if (withoutValue.length > 0) throw new HeadersWithoutValueError(withoutValue);
  const [row] = await sql<HostRow[]>`
    INSERT INTO hosts (id, project_id, name, template, config, headers_enc)
    VALUES (${newId('host')}, ${input.projectId}, ${input.name}, ${input.template}, ${sql.json(redactConfig(input.config) as never)},
            ${sealHeaders(box, headers)})
    RETURNING *`;
  return camelRow(row);
}

/** Renames and/or replaces the config; markers keep stored values, headers the config leaves out are dropped. */
export async function updateHost(
  sql: Sql,
  box: SecretBox,
  projectId: string,
  hostId: string,
  input: { name?: string; config?: HostConfig },
): Promise<StoredHost | undefined> {
  return (await sql.begin(async (tx) => {
    const [locked] = await tx<
      HostRow[]
    >`SELECT * FROM hosts WHERE id = ${hostId} AND project_id = ${projectId} FOR UPDATE`;
    if (!locked) return undefined;
    const current = camelRow(locked);
    let config = current.config;
    let headersEnc = current.headersEnc;
    if (input.config) {
      const { headers, withoutValue } = resolveHeaders(headersOf(input.config), hostHeaders(box, current));
      if (withoutValue.length > 0) throw new HeadersWithoutValueError(withoutValue);
      config = redactConfig(input.config);
      headersEnc = sealHeaders(box, headers);
    }
    const [row] = await tx<HostRow[]>`
      UPDATE hosts SET name = ${input.name ?? current.name}, config = ${tx.json(config as never)}, headers_enc = ${headersEnc}, updated_at = clock_timestamp()
      WHERE id = ${hostId}
      RETURNING *`;
    return camelRow(row);
  })) as StoredHost | undefined;
}

export async function deleteHost(sql: Db, projectId: string, hostId: string): Promise<boolean> {
  const rows = await sql`DELETE FROM hosts WHERE id = ${hostId} AND project_id = ${projectId} RETURNING id`;
  return rows.length === 1;
}

/**
 * Seals header values still held in plain text in a config (hosts saved before migration 004, which plain SQL could
 * not encrypt, or written by an older process). Every process runs it at start and `secrets rekey` runs it first;
 * it is a no-op once done. Returns how many hosts it sealed.
 */
export async function sealLegacyHostHeaders(sql: Sql, box: SecretBox): Promise<number> {
  return (await sql.begin(async (tx) => {
    const rows = camelRows(
      await tx<HostRow[]>`
      SELECT * FROM hosts
      WHERE jsonb_typeof(config #> '{connectionDefaults,headers}') = 'object'
        AND EXISTS (SELECT 1 FROM jsonb_each_text(config #> '{connectionDefaults,headers}') h WHERE h.value <> ${REDACTED})
      FOR UPDATE SKIP LOCKED`,
    );
    for (const row of rows) {
      await tx`
        UPDATE hosts SET config = ${tx.json(redactConfig(row.config) as never)}, headers_enc = ${sealHeaders(box, hostHeaders(box, row))}
        WHERE id = ${row.id}`;
    }
    return rows.length;
  })) as number;
}
