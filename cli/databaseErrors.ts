/*
 * The one place where a database error becomes a sentence for the operator CLI: a duplicate, a missing
 * organization or user, a value the schema refuses, or a database that cannot be reached. Checks before each
 * write (cli/admin.ts) catch the usual mistakes with their ids; this covers what they cannot (two writes racing,
 * a constraint no check knew about). Postgres names the error by SQLSTATE code and, for constraints, by name.
 */

import { CONNECTION_ERROR_CODES } from '../db/unreachable.js';

interface DatabaseError {
  code?: string;
  message?: string;
  detail?: string;
  constraint_name?: string;
  table_name?: string;
  column_name?: string;
  address?: string;
  port?: number;
}

/** A row of a table, as the operator names it. */
const NOUNS: Record<string, string> = {
  organizations: 'organization',
  users: 'user',
  memberships: 'membership',
  projects: 'project',
  project_members: 'project membership',
  servers: 'server',
  api_keys: 'API key',
  provider_keys: 'provider key',
  hosts: 'host',
  chatboxes: 'chatbox',
  chat_sessions: 'chat session',
  eval_suites: 'eval suite',
};
const noun = (table: string | undefined) =>
  table ? (NOUNS[table] ?? table.replace(/_/g, ' ').replace(/s$/, '')) : 'row';

/** Constraints whose duplicate deserves its own sentence: what to do differs from "it exists". */
const DUPLICATES: Record<string, (key: { column: string; value: string } | undefined) => string> = {
  users_email_key: (key) =>
    `a user with the email ${key?.value ?? 'given'} already exists (see: npm run -s admin -- user list)`,
  projects_one_default_idx: () =>
    'the organization already has a default project; create this one without --default (see: npm run -s admin -- project list)',
};

/** `Key (email)=(a@b.c) already exists.` / `Key (organization_id)=(org_x) is not present in table "organizations".` */
function keyOf(detail: string | undefined): { column: string; value: string } | undefined {
  const match = /^Key \((.+?)\)=\((.*)\) (?:already exists|is not present|is still referenced)/.exec(detail ?? '');
  return match ? { column: match[1], value: match[2] } : undefined;
}

/** The database a command used, as errors name it (cli/localStack.ts stackDatabase). */
export interface DatabaseInUse {
  /** host:port/database, never a password */
  label: string;
  /** where the CLI took it from */
  source: string;
  /** what to check when it cannot be reached */
  hint: string;
}

/**
 * The sentence for a database error, or undefined when the error is not one. With `database`, one that is about the
 * database itself (unreachable, refusing the login, missing, busy) names it (host:port/db) and where it came from.
 */
export function describeDatabaseError(error: unknown, database?: DatabaseInUse): string | undefined {
  const e = (error ?? {}) as DatabaseError;
  const code = e.code;
  if (typeof code !== 'string') return undefined;
  if (CONNECTION_ERROR_CODES.has(code)) {
    if (database) return `cannot reach the database ${database.label} (${code}), ${database.source}: ${database.hint}`;
    const where = e.address ? ` at ${e.address}${e.port ? `:${e.port}` : ''}` : '';
    return `cannot reach the database${where} (${code}): is \`npm start\` running, or is DATABASE_URL right?`;
  }
  const which = database ? `the database ${database.label} (${database.source})` : undefined;
  const key = keyOf(e.detail);
  switch (code) {
    case '23505': {
      const special = e.constraint_name ? DUPLICATES[e.constraint_name] : undefined;
      if (special) return special(key);
      return key
        ? `a ${noun(e.table_name)} with ${key.column} ${key.value} already exists`
        : `that ${noun(e.table_name)} already exists`;
    }
    case '23503': {
      const missing = /is not present in table "(\w+)"/.exec(e.detail ?? '');
      if (missing) return `no ${noun(missing[1])} ${key?.value ?? ''}`.trimEnd();
      const using = /is still referenced from table "(\w+)"/.exec(e.detail ?? '');
      if (using)
        return `${noun(e.table_name)} ${key?.value ?? ''} is still used by a ${noun(using[1])}`.replace('  ', ' ');
      return `a ${noun(e.table_name)} refers to something that does not exist`;
    }
    case '23502':
      return `${e.column_name ?? 'a value'} is required for a ${noun(e.table_name)}`;
    case '23514':
      return `a value is not allowed for a ${noun(e.table_name)} (${e.constraint_name ?? 'check'})`;
    case '22001':
      return `a value is too long${e.column_name ? ` for ${e.column_name}` : ''}`;
    case '22P02':
    case '22007':
    case '22008':
    case '22003':
      return `not a valid value: ${e.message ?? code}`;
    case '28P01':
    case '28000':
      return which
        ? `${which} refused the user or password`
        : 'the database refused the user or password in DATABASE_URL';
    case '3D000':
      return which
        ? `${which} does not exist (${e.message ?? code})`
        : `the database named in DATABASE_URL does not exist (${e.message ?? code})`;
    case '57P03':
    case '53300':
      return `${which ?? 'the database'} is not taking connections right now (${e.message ?? code}); try again in a moment`;
    default:
      return undefined;
  }
}
