import type { Db } from '../../../db/connection.js';
import { getAccount as readAccount } from '../../../db/accounts.js';
import type { Account } from '../../catalog/account.js';
import type { Principal } from '../../principal.js';

/** The account behind the key: its user, in the organization the key acts in (GET /me). */
export function getAccount(deps: { sql: Db }) {
  return async function getAccount(input: { principal: Principal }): Promise<Account> {
    return await readAccount(deps.sql, input.principal);
  };
}

export type GetAccount = ReturnType<typeof getAccount>;
