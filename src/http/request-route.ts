/**
 * The route TEMPLATE that answered a request (`/api/access-control/roles/:uid`), set by the door
 * that matched it and read by the request log and the HTTP metrics, which must never label by
 * raw path (one series per uid would grow without bound).
 */
const routes = new WeakMap<Request, string>();

/** Records that `template` answered `request`. */
export function tagRoute(request: Request, template: string): void {
  routes.set(request, template);
}

/** The template recorded for `request`, if a door recorded one. */
export function routeOf(request: Request): string | undefined {
  return routes.get(request);
}
