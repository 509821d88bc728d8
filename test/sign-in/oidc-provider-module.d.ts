/** The part of oidc-provider the tests use (it ships no types). */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Context {
    path: string;
    req: IncomingMessage;
    res: ServerResponse;
  }
  interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    Grant: new (options: {
      accountId: string;
      clientId: string;
    }) => Grant;
    use(middleware: (ctx: Context, next: () => Promise<void>) => Promise<void>): void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ params: Record<string, unknown> }>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: Record<string, unknown>,
    ): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
