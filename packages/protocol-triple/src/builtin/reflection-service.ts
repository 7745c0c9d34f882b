import { boundedEditDistance } from '@weft/core/spi';

import { GrpcStatus } from '../codec/grpc-status.js';
import type { ServerReflectionRequest as V1Request } from './gen/grpc/reflection/v1/reflection_pb.js';
import type { ServerReflectionRequest as V1AlphaRequest } from './gen/grpc/reflection/v1alpha/reflection_pb.js';
import type { ReflectionIndex } from './reflection-index.js';

/** A reflection request of either version (the two have the same fields). */
export type ReflectionRequest = V1Request | V1AlphaRequest;

/** How many names an error message lists. */
const LISTED = 10;
/** How much of an asked name an error message repeats. */
const SHOWN = 200;

/** `value` quoted for a message, cut at {@link SHOWN} characters. */
export function quoted(value: string): string {
  return JSON.stringify(value.length > SHOWN ? `${value.slice(0, SHOWN)}…` : value);
}

/**
 * Answers the requests of one `ServerReflectionInfo` stream (v1 or v1alpha) from the server's {@link ReflectionIndex},
 * one response per request, in order.
 *
 * @remarks
 * A name the index does not know is answered with an `error_response` NOT_FOUND (naming the closest known name),
 * and the stream goes on; so is a request that sets no field (INVALID_ARGUMENT). `index` is read per request, so a
 * long-lived stream sees services exported after it started.
 *
 * @example
 * ```ts
 * for await (const response of answerReflection(requests, () => index)) send(response);
 * ```
 */
export async function* answerReflection(requests: AsyncIterable<ReflectionRequest>, index: () => ReflectionIndex): AsyncGenerator<object, void, undefined> {
  for await (const request of requests) yield answerOne(request, index());
}

function answerOne(request: ReflectionRequest, index: ReflectionIndex): object {
  const head = { validHost: request.host, originalRequest: request };
  const files = (found: Uint8Array[] | undefined, what: string, name: string, known: () => readonly string[]) =>
    found === undefined
      ? error(request, GrpcStatus.NOT_FOUND, notFound(what, known(), name))
      : { ...head, messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto: found } } };
  const asked = request.messageRequest;
  switch (asked.case) {
    case 'listServices':
      return { ...head, messageResponse: { case: 'listServicesResponse', value: { service: index.serviceNames().map((name) => ({ name })) } } };
    case 'fileByFilename':
      return files(index.fileByName(asked.value), `File ${quoted(asked.value)}`, asked.value, () => index.fileNames());
    case 'fileContainingSymbol':
      return files(index.fileContainingSymbol(asked.value), `Symbol ${quoted(asked.value)}`, asked.value, () => index.serviceNames());
    case 'fileContainingExtension': {
      const { containingType, extensionNumber } = asked.value;
      return files(index.fileContainingExtension(containingType, extensionNumber), `Extension ${extensionNumber} of ${quoted(containingType)}`, containingType, () => []);
    }
    case 'allExtensionNumbersOfType': {
      const numbers = index.extensionNumbers(asked.value);
      if (numbers === undefined) return error(request, GrpcStatus.NOT_FOUND, notFound(`Type ${quoted(asked.value)}`, index.serviceNames(), asked.value));
      return { ...head, messageResponse: { case: 'allExtensionNumbersResponse', value: { baseTypeName: asked.value, extensionNumber: numbers } } };
    }
    default:
      return error(request, GrpcStatus.INVALID_ARGUMENT, 'The reflection request sets none of its message_request fields.');
  }
}

function error(request: ReflectionRequest, code: number, message: string): object {
  return { validHost: request.host, originalRequest: request, messageResponse: { case: 'errorResponse', value: { errorCode: code, errorMessage: message } } };
}

function notFound(what: string, known: readonly string[], name: string): string {
  let closest: string | undefined;
  let best = 4;
  for (const candidate of known) {
    const distance = boundedEditDistance(name, candidate, 3);
    if (distance < best) {
      best = distance;
      closest = candidate;
    }
  }
  const listed = known.length === 0 ? '' : ` Known: ${known.slice(0, LISTED).join(', ')}${known.length > LISTED ? ', …' : ''}.`;
  return `${what} not found on this server (only services defined from a .proto are described).${listed}${closest === undefined ? '' : ` Did you mean "${closest}"?`}`;
}
