import { builder } from './builder.js';

/** `{ message }`, the success body of REST writes, also returned by GraphQL mutations. */
export const MessagePayload = builder.objectRef<{ message: string }>('MessagePayload').implement({
  description: 'A human-readable confirmation, the same text the REST twin answers.',
  fields: (t) => ({ message: t.exposeString('message') }),
});
