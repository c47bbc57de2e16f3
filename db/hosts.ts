import type { Db } from './connection.js';
import { newId } from './ids.js';

export interface HostRow {
  id: string;
  project_id: string;
  name: string;
  template: string | null;
  config: Record<string, unknown> & { modelId?: string; serverIds?: string[] };
  created_at: Date;
  updated_at: Date;
}

export async function listHosts(sql: Db, projectId: string): Promise<HostRow[]> {
  return await sql<HostRow[]>`SELECT * FROM hosts WHERE project_id = ${projectId} ORDER BY created_at, id`;
}

export async function findHost(sql: Db, projectId: string, hostId: string): Promise<HostRow | undefined> {
  const [row] = await sql<HostRow[]>`SELECT * FROM hosts WHERE id = ${hostId} AND project_id = ${projectId}`;
  return row;
}

export async function createHost(sql: Db, input: { projectId: string; name: string; template: string | null; config: object }): Promise<HostRow> {
  const [row] = await sql<HostRow[]>`
    INSERT INTO hosts (id, project_id, name, template, config)
    VALUES (${newId('host')}, ${input.projectId}, ${input.name}, ${input.template}, ${sql.json(input.config as never)})
    RETURNING *`;
  return row;
}

export async function updateHost(sql: Db, projectId: string, hostId: string, input: { name?: string; config?: object }): Promise<HostRow | undefined> {
  const [row] = await sql<HostRow[]>`
    UPDATE hosts SET
      name = COALESCE(${input.name ?? null}, name),
      config = COALESCE(${input.config ? sql.json(input.config as never) : null}::jsonb, config),
      updated_at = now()
    WHERE id = ${hostId} AND project_id = ${projectId}
    RETURNING *`;
  return row;
}

export async function deleteHost(sql: Db, projectId: string, hostId: string): Promise<boolean> {
  const rows = await sql`DELETE FROM hosts WHERE id = ${hostId} AND project_id = ${projectId} RETURNING id`;
  return rows.length === 1;
}
