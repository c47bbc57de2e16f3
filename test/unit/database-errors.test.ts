import { describe, expect, it } from 'vitest';
import { describeDatabaseError } from '../../cli/databaseErrors.js';

// The fields postgres (porsager) copies from a Postgres ErrorResponse onto its PostgresError.
const pg = (fields: Record<string, unknown>) =>
  Object.assign(new Error(String(fields.message ?? 'database error')), fields);

describe('database errors as sentences (operator CLI)', () => {
  it.each([
    [
      'a duplicate email',
      pg({
        code: '23505',
        message: 'duplicate key value violates unique constraint "users_email_key"',
        constraint_name: 'users_email_key',
        table_name: 'users',
        detail: 'Key (email)=(ops@acme.test) already exists.',
      }),
      'a user with the email ops@acme.test already exists (see: npm run -s admin -- user list)',
    ],
    [
      'a second default project',
      pg({
        code: '23505',
        message: 'duplicate key value violates unique constraint "projects_one_default_idx"',
        constraint_name: 'projects_one_default_idx',
        table_name: 'projects',
        detail: 'Key (organization_id)=(org_1) already exists.',
      }),
      'the organization already has a default project; create this one without --default (see: npm run -s admin -- project list)',
    ],
    [
      'another duplicate',
      pg({
        code: '23505',
        constraint_name: 'hosts_pkey',
        table_name: 'hosts',
        detail: 'Key (id)=(hst_1) already exists.',
      }),
      'a host with id hst_1 already exists',
    ],
    [
      'an organization that does not exist',
      pg({
        code: '23503',
        message:
          'insert or update on table "memberships" violates foreign key constraint "memberships_organization_id_fkey"',
        table_name: 'memberships',
        detail: 'Key (organization_id)=(org_nope) is not present in table "organizations".',
      }),
      'no organization org_nope',
    ],
    [
      'a row still in use',
      pg({
        code: '23503',
        table_name: 'hosts',
        detail: 'Key (id)=(hst_1) is still referenced from table "chatboxes".',
      }),
      'host hst_1 is still used by a chatbox',
    ],
    ['a value too long', pg({ code: '22001', column_name: 'name' }), 'a value is too long for name'],
    [
      'a refused check',
      pg({ code: '23514', table_name: 'servers', constraint_name: 'servers_check' }),
      'a value is not allowed for a server (servers_check)',
    ],
    [
      'a database that is not running',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:54329'), {
        code: 'ECONNREFUSED',
        address: '127.0.0.1',
        port: 54329,
      }),
      'cannot reach the database at 127.0.0.1:54329 (ECONNREFUSED): is `npm start` running, or is DATABASE_URL right?',
    ],
  ])('%s', (_what, error, sentence) => {
    expect(describeDatabaseError(error)).toBe(sentence);
  });

  it('names the database the command used and where it came from, for errors about the database itself', () => {
    const database = { label: '127.0.0.1:5433/runway', source: 'from DATABASE_URL', hint: 'is DATABASE_URL right?' };
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' });
    expect(describeDatabaseError(refused, database)).toBe(
      'cannot reach the database 127.0.0.1:5433/runway (ECONNREFUSED), from DATABASE_URL: is DATABASE_URL right?',
    );
    expect(describeDatabaseError(pg({ code: '28P01' }), database)).toBe(
      'the database 127.0.0.1:5433/runway (from DATABASE_URL) refused the user or password',
    );
    expect(describeDatabaseError(pg({ code: '57P03', message: 'the database system is starting up' }), database)).toBe(
      'the database 127.0.0.1:5433/runway (from DATABASE_URL) is not taking connections right now (the database system is starting up); try again in a moment',
    );
    // A row's error is about the row: no database named.
    expect(describeDatabaseError(pg({ code: '22001', column_name: 'name' }), database)).toBe(
      'a value is too long for name',
    );
  });

  it('leaves anything else to the caller', () => {
    expect(describeDatabaseError(new Error('no server srv_1'))).toBeUndefined();
    expect(describeDatabaseError(pg({ code: 'XX000' }))).toBeUndefined();
    expect(describeDatabaseError(undefined)).toBeUndefined();
  });
});
