import { RpcError, RpcErrorCode, type Invocation, type URL } from '@weft/core';
import { IdlSerialization, type ExtensionLoader, type Serialization } from '@weft/core/spi';

import type { AuthKeys } from './auth-keys.js';
import { AuthAttachments, AuthParameters } from './auth-parameters.js';
import { CanonicalLimitError, canonicalArgumentsDigest } from './canonical-arguments.js';
import { newNonce, signatureOf, SIGNATURE_VERSION, type SignedRequest } from './request-signature.js';

/** A reference's signing settings, read once per URL. */
interface SignerConfig {
  readonly keyId: string;
  readonly secret: Buffer | undefined;
  readonly signArguments: boolean;
}

/**
 * The consumer half of the `auth` filter: signs each call (each attempt, so a retry gets a fresh nonce).
 *
 * @remarks Reads `auth.key-id`, `auth.secret` (else the application's `AuthKeys`) and `auth.sign-arguments` from
 * the invoker's URL; sets the {@link AuthAttachments}. A call that cannot be signed (no secret, arguments beyond the
 * canonical form's bounds) rejects with `RpcError` `forbidden` before it is sent.
 * @internal Used by `AuthFilter`.
 */
export class RequestSigner {
  private readonly configs = new WeakMap<URL, SignerConfig | null>();

  constructor(
    private readonly authKeys: () => AuthKeys | undefined,
    private readonly serializations: ExtensionLoader<Serialization>,
  ) {}

  /** Signs `invocation` for the provider behind `url`; an `RpcError` when it cannot. */
  sign(url: URL, invocation: Invocation, now: number = Date.now()): RpcError | undefined {
    const config = this.configOf(url);
    if (config === null) return undefined;
    const method = invocation.methodName;
    const service = url.getServiceInterface() ?? url.path;
    const secret = config.secret ?? this.authKeys()?.secretOf(config.keyId);
    if (secret === undefined) {
      return new RpcError(
        RpcErrorCode.FORBIDDEN,
        `Cannot sign the call to ${service}.${method}(): there is no secret for ${AuthParameters.KEY_ID}=${config.keyId} ` +
          `(set ${AuthParameters.SECRET} on the reference, or add the key id to the AuthKeys registered on the application model).`,
      );
    }
    let argumentsDigest: string | undefined;
    if (config.signArguments) {
      try {
        argumentsDigest = canonicalArgumentsDigest(signedArgumentsOf(invocation, this.serializations));
      } catch (error) {
        if (!(error instanceof CanonicalLimitError)) throw error;
        return new RpcError(
          RpcErrorCode.FORBIDDEN,
          `Cannot sign the arguments of ${service}.${method}(): ${error.message}. Pass smaller arguments, or sign without them (${AuthParameters.SIGN_ARGUMENTS}=false).`,
        );
      }
    }
    const request: SignedRequest = {
      keyId: config.keyId,
      service,
      group: url.getGroup() ?? '',
      version: url.getVersion() ?? '',
      method,
      timestamp: now,
      nonce: newNonce(),
      argumentsDigest,
    };
    invocation
      .setAttachment(AuthAttachments.KEY_ID, request.keyId)
      .setAttachment(AuthAttachments.TIMESTAMP, String(request.timestamp))
      .setAttachment(AuthAttachments.NONCE, request.nonce)
      .setAttachment(AuthAttachments.ARGUMENTS, argumentsDigest === undefined ? 'unsigned' : 'sha256')
      .setAttachment(AuthAttachments.SIGNATURE, `${SIGNATURE_VERSION}=${signatureOf(request, secret).toString('base64url')}`);
    return undefined;
  }

  private configOf(url: URL): SignerConfig | null {
    let config = this.configs.get(url);
    if (config === undefined) {
      const keyId = url.getParameter(AuthParameters.KEY_ID);
      const secret = url.getParameter(AuthParameters.SECRET);
      config =
        keyId === undefined || keyId === ''
          ? null
          : {
              keyId,
              secret: secret === undefined || secret === '' ? undefined : Buffer.from(secret, 'utf8'),
              signArguments: url.getParameter(AuthParameters.SIGN_ARGUMENTS)?.trim().toLowerCase() !== 'false',
            };
      this.configs.set(url, config);
    }
    return config;
  }
}

/**
 * The arguments a signature covers, as the provider will see them.
 *
 * @remarks Client- and bidi-streaming methods: none (the request stream is not signed). Methods of IDL services
 * (protobuf): a plain init object is encoded and decoded with the method's serialization first, so the digest is
 * the one of the full message the provider decodes (defaults filled in). Otherwise the arguments as given.
 * @internal
 */
export function signedArgumentsOf(invocation: Invocation, serializations?: ExtensionLoader<Serialization>): readonly unknown[] {
  const method = invocation.method;
  if (method?.stream === 'client' || method?.stream === 'bidi') return [];
  const idl = method?.idl;
  const first = invocation.args[0];
  if (
    serializations === undefined ||
    idl === undefined ||
    invocation.args.length !== 1 ||
    first === null ||
    typeof first !== 'object' ||
    typeof (first as { $typeName?: unknown }).$typeName === 'string'
  ) {
    return invocation.args;
  }
  try {
    const serialization = serializations.getExtension(idl.serialization);
    if (!(serialization instanceof IdlSerialization)) return invocation.args;
    return [serialization.decodeMessage(serialization.encodeMessage(first, idl.input), idl.input)];
  } catch {
    return invocation.args; // the call itself will report the serialization problem
  }
}
