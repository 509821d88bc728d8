/**
 * Server-sent event ids on graphql-yoga's SSE transport. Yoga writes a subscription's results as
 * `event: next` / `data: <result>` blocks with no `id:` field; a client that reconnects can then
 * say nothing of where it stood. This plugin keeps yoga's own SSE writer (its headers, pings,
 * error masking and final `event: complete`) and adds an `id: <id>` line to each `next` event whose
 * resolver named one (modules/shared/event-ids.ts): an EventSource remembers it and sends it back
 * as the `Last-Event-ID` header when it reconnects (WHATWG HTML, "Server-sent events"), which the
 * context hands to the subscription (modules/changes/streams.ts resumes after it).
 *
 * It sets its own result processor for text/event-stream answers of async-iterable results
 * (yoga's `onResultProcess` hook, run after yoga's, which chose its SSE processor): yoga's
 * processor, over the results each tagged as they are pulled, its body passed through a transform
 * that appends the tag of each `next` block. The transform pulls only as the client reads, so a
 * slow client still holds the subscription back (modules/changes/change-stream.ts bounds it).
 */
import type { ExecutionResult } from 'graphql';
import { getSSEProcessor, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { takeEventId } from '../modules/shared/event-ids.js';

const SSE = 'text/event-stream';

/** Yoga plugin: `id:` lines on SSE events (module comment). */
export function useSseEventIds(): Plugin {
  const sse = getSSEProcessor();
  return {
    onResultProcess({ request, result, resultProcessor, setResultProcessor }) {
      if (!resultProcessor || !isAsyncIterable(result) || !request.headers.get('accept')?.includes(SSE)) return;
      setResultProcessor(async (_result, fetchAPI) => {
        const ids: (string | undefined)[] = [];
        const answer = await sse(tagged(result, ids, request), fetchAPI, SSE);
        if (!answer.body) return answer;
        const body = answer.body.pipeThrough(withIds(ids, fetchAPI.TransformStream, fetchAPI.TextEncoder));
        return new fetchAPI.Response(body, { status: answer.status, headers: answer.headers });
      }, SSE);
    },
  };
}

/** `result`, recording in `ids` the id named for each result as it is pulled. */
function tagged<T extends ExecutionResult>(result: AsyncIterable<T>, ids: (string | undefined)[], request: Request): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = result[Symbol.asyncIterator]();
      return {
        async next() {
          const step = await iterator.next();
          if (!step.done && step.value != null) ids.push(takeEventId(request));
          return step;
        },
        return: (value?: unknown) => iterator.return?.(value) ?? Promise.resolve({ done: true as const, value: undefined }),
        throw: (error?: unknown) => iterator.throw?.(error) ?? Promise.reject(error),
      };
    },
  };
}

/**
 * A transform of an SSE body appending `id: <id>` to each `event: next` block, the ids taken from
 * `ids` in order (yoga writes one `next` block per result pulled, in the order pulled).
 */
function withIds(
  ids: (string | undefined)[],
  Transform: typeof TransformStream,
  Encoder: typeof TextEncoder,
): TransformStream<Uint8Array, Uint8Array> {
  // Node's own decoder: the server's ponyfill one cannot flush (decode() without a chunk).
  const decoder = new TextDecoder();
  const encoder = new Encoder();
  let pending = '';
  return new Transform({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let out = '';
      for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        const id = block.startsWith('event: next\n') ? ids.shift() : undefined;
        out += id === undefined ? `${block}\n\n` : `${block}\nid: ${id}\n\n`;
      }
      if (out) controller.enqueue(encoder.encode(out));
    },
    flush(controller) {
      pending += decoder.decode();
      if (pending) controller.enqueue(encoder.encode(pending));
    },
  });
}
