/** The Team type. */
import { builder } from '../builder.js';

export const TeamType = builder.prismaObject('Team', {
  description: 'A team of one organization. Its id is the one REST paths take as :teamId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    orgId: t.exposeInt('orgId'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
  }),
});
