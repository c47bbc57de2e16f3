import { getAccount } from '../../db/accounts.js';
import type { RouteDeps } from '../app.js';
import { defineRoute } from '../route.js';
import { accountSchema } from '../schemas/account.js';

export function accountRoutes({ sql }: RouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/me',
      tag: 'Catalog',
      summary: 'The account behind the key',
      response: accountSchema,
      errors: [],
      async handler({ principal }) {
        const row = await getAccount(sql, principal);
        return {
          id: row.id,
          email: row.email,
          name: row.name,
          imageUrl: row.imageUrl,
          // The hosted product tells an uploaded picture from the sign-in provider's; Runway has the one.
          profilePictureUrl: row.imageUrl,
          plan: row.plan,
          createdAt: row.createdAt.getTime(),
          updatedAt: row.updatedAt.getTime(),
          organization: { id: row.orgId, name: row.orgName },
        };
      },
    }),
  ];
}
