/** The ServiceAccount type: a User row with isServiceAccount, in the same id space as users. */
import { builder } from '../builder.js';

export const ServiceAccountType = builder.prismaObject('User', {
  variant: 'ServiceAccount',
  description: 'A service account of one organization. Its id is the one REST paths take as :userId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login'),
    name: t.exposeString('name'),
    orgId: t.exposeInt('orgId'),
  }),
});
