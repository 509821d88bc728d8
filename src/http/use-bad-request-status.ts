/**
 * GraphQL parse and validation errors are the client's bad input: answer them 400, as the REST
 * door answers a malformed body. Yoga marks them 400 only for `application/graphql-response+json`
 * (`extensions.http.spec`) and answers 200 to plain `application/json` clients; this plugin drops
 * that distinction. Codes stay yoga's: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED.
 * Validation errors of rules built on another copy of graphql-js (GraphQL Armor's CommonJS
 * build) escape yoga's tagging, so every validation error without a code gets
 * GRAPHQL_VALIDATION_FAILED here.
 * Yoga's own request errors (BAD_REQUEST: no `query`, as `GET /graphql?variables={}` or
 * `?query[]=1`) are marked the same way, and answer 400 too.
 * Variables that do not fit their types (`"$input" got invalid value`, a version past 32 bits)
 * are request errors without a code, answered 200 by yoga: they get the REST twin's 400
 * VALIDATION_FAILED. graphql-js quotes the refused value whole in their
 * message, so a megabyte string sent for an Int came back as a megabyte of error text: quoted
 * values are cut to their first QUOTED_VALUE_CHARS characters.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const BAD_REQUEST_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST']);

/** Characters of a quoted value kept in a variable error's message. */
const QUOTED_VALUE_CHARS = 64;
/** A JSON string literal longer than QUOTED_VALUE_CHARS characters (escapes count as one). */
const LONG_QUOTED = new RegExp(`"((?:[^"\\\\]|\\\\.){${QUOTED_VALUE_CHARS}})(?:[^"\\\\]|\\\\.)+"`, 'g');

/** `message` with every long quoted value cut after QUOTED_VALUE_CHARS characters, marked "…". */
function shortenQuotedValues(message: string): string {
  return message.replace(LONG_QUOTED, '"$1…"');
}

interface HttpExtension {
  spec?: boolean;
  status?: number;
}

/**
 * A request error of graphql-js's variable coercion (`Variable "$input" got invalid value ...`,
 * or the scalar's own message once masking unwrapped it): in a result without data, with no
 * code, no HTTP status and no path. Yoga's own request errors all carry an HTTP status.
 */
function isVariableError(error: GraphQLError): boolean {
  return !error.extensions?.code && !error.extensions?.http && !error.path;
}

/** Yoga plugin: parse, validation and request errors always set HTTP 400. */
export function useBadRequestStatus(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length === 0 || result.every((e) => e.extensions?.code)) return;
        setResult(
          result.map((e) =>
            e.extensions?.code
              ? e
              : new GraphQLError(e.message, {
                  ...(e.nodes && { nodes: e.nodes }),
                  extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
                }),
          ),
        );
      };
    },
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors) return;
      if (result.data === undefined && result.errors.some(isVariableError)) {
        setResult({
          ...result,
          errors: result.errors.map((e) =>
            !isVariableError(e)
              ? e
              : new GraphQLError(shortenQuotedValues(e.message), {
                  ...(e.nodes && { nodes: e.nodes }),
                  extensions: { ...e.extensions, code: 'VALIDATION_FAILED', http: { status: 400 } },
                }),
          ),
        });
        return;
      }
      for (const error of result.errors) {
        const http = error.extensions?.http as HttpExtension | undefined;
        if (http && BAD_REQUEST_CODES.has(String(error.extensions?.code))) http.spec = false;
      }
    },
  };
}
