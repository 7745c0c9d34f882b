import type { CorsPolicy } from './cors-policy.js';
import { headerString, isJsonContentType } from './http-util.js';
import { PlainHttpError, type PlainExchange } from './plain-exchange.js';
import type { ServerMethod } from './triple-exporter.js';

// Who may invoke a method over plain HTTP (the CSRF rules): POST with a JSON content type always; GET only for a
// method declared safe; everything a browser sends cross-origin without a preflight (text/plain and form bodies,
// GET of a method with side effects) is refused. CORS is answered only for the configured origins.

/** The HTTP methods that may invoke `method` over plain HTTP (`GET` only when it is declared safe). */
export function plainMethodsOf(method: ServerMethod | undefined): string {
  return method?.descriptor?.safe === true ? 'GET, POST' : 'POST';
}

/**
 * Throws the answer for a request that may not invoke `method`: 405 (with `allow`) for an HTTP method other than
 * `POST` (or `GET` of a safe method), 415 for a `POST` without a JSON content type.
 */
export function checkInvocable(exchange: PlainExchange, serviceKey: string, method: ServerMethod): void {
  const verb = exchange.method;
  if (verb === 'POST') {
    const contentType = headerString(exchange.headers, 'content-type');
    if (contentType === undefined || !isJsonContentType(contentType)) {
      throw new PlainHttpError(
        415,
        contentType === undefined
          ? `Unsupported Media Type: no content-type; a plain-HTTP call is a POST with content-type application/json.`
          : `Unsupported Media Type '${contentType}'`,
      );
    }
    return;
  }
  const safe = method.descriptor?.safe === true;
  if (verb === 'GET' && safe) return;
  const allow = plainMethodsOf(method);
  const how =
    verb === 'GET'
      ? ` If ${method.name}() has no side effects, declare it safe to allow GET: { ${method.name}: { safe: true, … } } in defineService ` +
        '(IDL: option idempotency_level = NO_SIDE_EFFECTS).'
      : '';
  throw new PlainHttpError(
    405,
    `${verb} cannot invoke ${serviceKey}.${method.name}(): over plain HTTP a method is invoked by POST with content-type ` +
      `application/json${safe ? ', or by GET (it is declared safe)' : ''}.${how}`,
    undefined,
    { allow },
  );
}

/**
 * Answers an `OPTIONS` request: a CORS preflight (it has `Origin` and `Access-Control-Request-Method`) succeeds only
 * for an allowed origin asking for a method that may invoke; any other `OPTIONS` gets 204 with `allow`.
 */
export function answerOptions(exchange: PlainExchange, cors: CorsPolicy | undefined, method: ServerMethod | undefined, address: string): void {
  const headers = exchange.headers;
  const allow = plainMethodsOf(method);
  const origin = headerString(headers, 'origin');
  const requested = headerString(headers, 'access-control-request-method');
  if (origin === undefined || requested === undefined) {
    exchange.respond(204, { allow: `${allow}, OPTIONS` }, undefined);
    return;
  }
  if (cors === undefined || !cors.allows(origin)) {
    throw new PlainHttpError(
      403,
      `CORS preflight refused: origin ${origin} may not call ${address} ` +
        `(${cors === undefined ? 'CORS is off; list the origins that may call in the URL key cors-allowed-origins' : 'it is not listed in cors-allowed-origins'}).`,
    );
  }
  if (!allow.split(', ').includes(requested.toUpperCase())) {
    throw new PlainHttpError(403, `CORS preflight refused: ${requested} cannot invoke this method (allowed: ${allow}).`);
  }
  exchange.respond(204, cors.preflightHeaders(origin, allow, headerString(headers, 'access-control-request-headers')), undefined);
}
