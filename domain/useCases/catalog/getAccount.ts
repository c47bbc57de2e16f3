import type { Account } from '../../catalog/account.js';
import type { CatalogStore } from '../../ports/catalogStore.js';
import type { Principal } from '../../principal.js';

/** The account behind the key: its user, in the organization the key acts in (GET /me). */
export function getAccount(deps: { catalog: CatalogStore }) {
  return async function getAccount(input: { principal: Principal }): Promise<Account> {
    return await deps.catalog.account(input.principal);
  };
}

export type GetAccount = ReturnType<typeof getAccount>;
