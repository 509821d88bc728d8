/**
 * The GraphQL door's body limit (MAX_REQUEST_BODY_BYTES), in place of yoga's
 * own (`maxRequestBodySize: false` in hardening.ts), with the same answers: 413
 * REQUEST_TOO_LARGE on a declared Content-Length over the limit before a byte is read, or as
 * soon as a streamed body passes it; 400 BAD_REQUEST on an invalid Content-Length or a body that
 * ends early. A body without a Content-Length (chunked) is read by the REST doors' reader
 * (body.ts readBody) before yoga's parser sees it.
 *
 * Cheaper on the common request: a body whose Content-Length is declared and within
 * the limit goes to yoga's parser as it is. Yoga pipes every body through a counting transform
 * stream, and closing that pipeline (an AbortSignal, a DOMException) cost about a tenth of a bare
 * yoga request's CPU (bench/http.ts --profile). Nothing is lost: Node's HTTP parser delivers
 * exactly the declared bytes of a request (it frames the body by Content-Length, and refuses a
 * request that declares both Content-Length and Transfer-Encoding), so such a body cannot pass
 * the limit.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../platform/logger.js';
import { readBody, refuseDeclaredLength } from './body.js';
import { toGraphQLError } from './graphql-errors.js';

/** Yoga plugin: the limit above, `limit` in bytes. Must come after yoga's request parsers (any user plugin does). */
export function useBodyLimit(limit: number, log: Logger): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      if (request.method !== 'POST') return;
      try {
        if (refuseDeclaredLength(request, limit)) return;
      } catch (error) {
        throw toGraphQLError(error, log);
      }
      if (!requestParser || !request.body) return;
      const parse = requestParser;
      setRequestParser(async (req) => {
        let bytes: Uint8Array;
        try {
          bytes = await readBody(req, limit);
        } catch (error) {
          throw toGraphQLError(error, log);
        }
        // Decoded as yoga decodes (bad bytes become U+FFFD, which the gate refuses).
        const body = Buffer.from(bytes).toString('utf8');
        return parse(new fetchAPI.Request(req.url, { method: req.method, headers: req.headers, body }));
      });
    },
  };
}
