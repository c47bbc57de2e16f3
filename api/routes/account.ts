import type { GetAccount } from '../../domain/useCases/catalog/getAccount.js';
import { defineRoute } from '../route.js';
import { accountSchema } from '../schemas/account.js';

export function accountRoutes({ getAccount }: { getAccount: GetAccount }) {
  return [
    defineRoute({
      method: 'get',
      path: '/me',
      tag: 'Catalog',
      summary: 'The account behind the key',
      response: accountSchema,
      errors: [],
      async handler({ principal }) {
        const account = await getAccount({ principal });
        return {
          id: account.id,
          email: account.email,
          name: account.name,
          imageUrl: account.imageUrl,
          // The hosted product tells an uploaded picture from the sign-in provider's; Runway has the one.
          profilePictureUrl: account.imageUrl,
          plan: account.plan,
          createdAt: account.createdAt.getTime(),
          updatedAt: account.updatedAt.getTime(),
          organization: account.organization,
        };
      },
    }),
  ];
}
