import { Option, type Command } from 'commander';
import type { Sql } from '../db/connection.js';
import {
  listApiKeys,
  listOrganizations,
  listProjectEntries,
  listServerEntries,
  listUsers,
  type KeyEntry,
} from '../db/directory.js';
import { requireOrganization, requireProject } from './adminChecks.js';
import { formatTable } from './runway/table.js';

/** How the operator CLI runs a command (cli/admin.ts `action`): the result is printed as JSON or through `describe`. */
export type AdminAction = <O extends object>(
  run: (ctx: { sql: Sql }, options: O, args: string[]) => Promise<object>,
  describe: (result: any) => string,
) => (...received: unknown[]) => Promise<void>;

const when = (date: Date | null) => (date ? date.toISOString().replace('T', ' ').slice(0, 16) : '-');
const iso = (date: Date | null) => (date ? date.toISOString() : null);
const json = () => new Option('--json', 'print machine-readable JSON (an array)');

/** A key's state: revoked, or unable to act because its owner left (or its organization is gone), or active. */
const keyStatus = (k: KeyEntry) => (k.revokedAt ? 'revoked' : !k.bound ? 'unbound' : 'active');

/** `org list`, `user list`, `project list`, `server list`, `key list`: what exists, with the ids other commands take. */
export function addListCommands(
  parents: { org: Command; user: Command; project: Command; server: Command; key: Command },
  action: AdminAction,
): void {
  parents.org
    .command('list')
    .description('every organization, with its members and projects')
    .addOption(json())
    .action(
      action(
        async ({ sql }) =>
          (await listOrganizations(sql)).map((o) => ({
            id: o.id,
            name: o.name,
            members: o.members,
            projects: o.projects,
            createdAt: iso(o.createdAt),
          })),
        (rows: { id: string; name: string; members: number; projects: number; createdAt: string }[]) =>
          rows.length === 0
            ? 'no organizations yet: npm run -s admin -- org create --name ...'
            : formatTable(
                ['ID', 'NAME', 'MEMBERS', 'PROJECTS', 'CREATED'],
                rows.map((r) => [r.id, r.name, r.members, r.projects, when(new Date(r.createdAt))]),
              ),
      ),
    );

  parents.user
    .command('list')
    .description('every user, or the members of one organization with their role')
    .option('--org <organizationId>', 'only the members of this organization')
    .addOption(json())
    .action(
      action<{ org?: string }>(
        async ({ sql }, o) => {
          if (o.org) await requireOrganization(sql, o.org);
          return (await listUsers(sql, { organizationId: o.org })).map((u) => ({
            id: u.id,
            email: u.email,
            name: u.name,
            ...(o.org ? { role: u.role } : {}),
            createdAt: iso(u.createdAt),
          }));
        },
        (rows: { id: string; email: string; name: string; role?: string; createdAt: string }[]) =>
          rows.length === 0
            ? 'no users'
            : formatTable(
                ['ID', 'EMAIL', 'NAME', ...(rows[0].role !== undefined ? ['ROLE'] : []), 'CREATED'],
                rows.map((r) => [
                  r.id,
                  r.email,
                  r.name,
                  ...(r.role !== undefined ? [r.role] : []),
                  when(new Date(r.createdAt)),
                ]),
              ),
      ),
    );

  parents.project
    .command('list')
    .description('every project, or those of one organization')
    .option('--org <organizationId>', 'only the projects of this organization')
    .addOption(json())
    .action(
      action<{ org?: string }>(
        async ({ sql }, o) => {
          if (o.org) await requireOrganization(sql, o.org);
          return (await listProjectEntries(sql, { organizationId: o.org })).map((p) => ({
            id: p.id,
            organizationId: p.organizationId,
            name: p.name,
            visibility: p.visibility,
            isDefault: p.isDefault,
            createdAt: iso(p.createdAt),
          }));
        },
        (
          rows: {
            id: string;
            organizationId: string;
            name: string;
            visibility: string;
            isDefault: boolean;
            createdAt: string;
          }[],
        ) =>
          rows.length === 0
            ? 'no projects'
            : formatTable(
                ['ID', 'ORGANIZATION', 'NAME', 'DEFAULT', 'VISIBILITY', 'CREATED'],
                rows.map((r) => [
                  r.id,
                  r.organizationId,
                  r.name,
                  r.isDefault ? 'yes' : 'no',
                  r.visibility,
                  when(new Date(r.createdAt)),
                ]),
              ),
      ),
    );

  parents.server
    .command('list')
    .description('every saved server, or those of one project or organization (never their secrets)')
    .option('--project <projectId>', 'only the servers of this project')
    .option('--org <organizationId>', 'only the servers of this organization')
    .addOption(json())
    .action(
      action<{ project?: string; org?: string }>(
        async ({ sql }, o) => {
          if (o.project) await requireProject(sql, o.project);
          if (o.org) await requireOrganization(sql, o.org);
          return (await listServerEntries(sql, { projectId: o.project, organizationId: o.org })).map((s) => ({
            id: s.id,
            projectId: s.projectId,
            name: s.name,
            transportType: s.transportType,
            enabled: s.enabled,
            url: s.url,
            command: s.command,
            createdAt: iso(s.createdAt),
          }));
        },
        (
          rows: {
            id: string;
            projectId: string;
            name: string;
            transportType: string;
            enabled: boolean;
            url: string | null;
            command: string | null;
          }[],
        ) =>
          rows.length === 0
            ? 'no servers'
            : formatTable(
                ['ID', 'PROJECT', 'NAME', 'TRANSPORT', 'ENABLED', 'URL OR COMMAND'],
                rows.map((r) => [
                  r.id,
                  r.projectId,
                  r.name,
                  r.transportType,
                  r.enabled ? 'yes' : 'no',
                  r.url ?? r.command ?? '',
                ]),
                { maxWidth: 70 },
              ),
      ),
    );

  parents.key
    .command('list')
    .description(
      "API keys by id, name and prefix, with their owner and state (active, revoked, or unbound: the owner is no longer a member); never a key's value",
    )
    .option('--org <organizationId>', 'only the keys of this organization')
    .addOption(json())
    .action(
      action<{ org?: string }>(
        async ({ sql }, o) => {
          if (o.org) await requireOrganization(sql, o.org);
          return (await listApiKeys(sql, { organizationId: o.org })).map((k) => ({
            id: k.id,
            name: k.name,
            prefix: k.keyPrefix,
            organizationId: k.organizationId,
            userId: k.userId,
            userEmail: k.userEmail,
            status: keyStatus(k),
            createdAt: iso(k.createdAt),
            revokedAt: iso(k.revokedAt),
            lastUsedAt: iso(k.lastUsedAt),
          }));
        },
        (
          rows: {
            id: string;
            name: string;
            prefix: string;
            organizationId: string | null;
            userEmail: string;
            status: string;
            createdAt: string;
            revokedAt: string | null;
          }[],
        ) =>
          rows.length === 0
            ? 'no API keys'
            : formatTable(
                ['ID', 'NAME', 'PREFIX', 'ORGANIZATION', 'USER', 'STATUS', 'CREATED', 'REVOKED'],
                rows.map((r) => [
                  r.id,
                  r.name,
                  `${r.prefix}…`,
                  r.organizationId ?? '-',
                  r.userEmail,
                  r.status,
                  when(new Date(r.createdAt)),
                  when(r.revokedAt ? new Date(r.revokedAt) : null),
                ]),
              ),
      ),
    );
}
