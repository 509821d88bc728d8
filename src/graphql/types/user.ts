/** The User type (a person; service accounts have their own type on the same table). */
import { builder } from '../builder.js';

export const UserType = builder.prismaObject('User', {
  description: 'A user. Its numeric id is the one REST paths take as :userId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    login: t.exposeString('login'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    isServiceAdmin: t.exposeBoolean('isServiceAdmin', { description: 'Server-wide administrator (basic:service_admin).' }),
  }),
});
