/**
 * The server-sent event id of a subscription's events: the subscription field's resolver names
 * the id of the event it resolves (`markEventId`), and the SSE writer (http/use-sse-event-ids.ts)
 * takes it as it writes that event's result (`takeEventId`). graphql-js resolves one event at a
 * time per subscription, so the id taken after each result is that result's. Keyed by the request,
 * which yoga puts in every context.
 */
const latest = new WeakMap<Request, string>();

/** Names `id` as the SSE id of the event being resolved for `request` (absent: no id). */
export function markEventId(request: Request | undefined, id: string): void {
  if (request) latest.set(request, id);
}

/** The id named for `request`'s latest event, once; undefined when none was named since. */
export function takeEventId(request: Request): string | undefined {
  const id = latest.get(request);
  latest.delete(request);
  return id;
}
