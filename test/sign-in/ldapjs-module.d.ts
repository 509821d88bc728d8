/** The part of ldapjs's server the tests use (its published types lag behind version 3). */
declare module 'ldapjs' {
  interface Filter {
    matches(attributes: Record<string, unknown>): boolean;
    toString(): string;
  }
  interface Request {
    dn: { toString(): string };
    credentials: unknown;
    filter: Filter;
  }
  interface Response {
    attributes: string[];
    send(entry: { dn: string; attributes: Record<string, unknown> }): void;
    end(): void;
  }
  type Handler = (req: Request, res: Response, next: (error?: unknown) => void) => void;
  interface Server {
    bind(base: string, handler: Handler): void;
    search(base: string, handler: Handler): void;
    listen(port: number, host: string, callback: () => void): void;
    address(): import('node:net').AddressInfo;
    close(callback: () => void): void;
  }
  const ldap: { createServer(): Server; InvalidCredentialsError: new () => unknown };
  export default ldap;
}
