import type { Invocation } from './invocation.js';

/**
 * The certificate a TLS peer presented, as a provider sees it under mTLS (or a consumer sees its provider's).
 *
 * @remarks Read from the verified handshake: a peer certificate is only ever reported after the chain was checked
 * against the configured trust collection, so a filter may rely on it.
 * @example
 * ```ts
 * const certificate = peerCertificateOf(invocation);
 * if (certificate?.commonName !== 'billing') throw new RpcError(RpcErrorCode.FORBIDDEN, 'billing only');
 * ```
 */
export interface PeerCertificate {
  /** The subject as `CN=billing, O=Acme` (attributes in the certificate's order). */
  readonly subject: string;
  /** The subject's common name (`CN`), if it has one. */
  readonly commonName: string | undefined;
  /** The subject alternative names as written by OpenSSL: `DNS:billing.acme.internal`, `URI:spiffe://acme/billing`, … */
  readonly subjectAltNames: readonly string[];
  /** The issuer, formatted as {@link PeerCertificate.subject}. */
  readonly issuer: string;
  /** SHA-256 fingerprint, `AB:CD:…`. */
  readonly fingerprint256: string;
  /** Serial number, hexadecimal. */
  readonly serialNumber: string;
  /** End of validity (ISO 8601). */
  readonly validTo: string;
}

/**
 * Who is calling, as established by an authenticating layer: a verified client certificate (`via: 'tls'`) or a
 * verified request signature (`via: 'signature'`, from `@weft/filter-auth`).
 *
 * @remarks `principal` is the name authorisation rules match: a certificate's common name (else its first subject
 * alternative name), or a signature's key id.
 * @example
 * ```ts
 * const caller = callerIdentityOf(invocation); // { principal: 'billing', via: 'tls', certificate: { … } }
 * ```
 */
export interface CallerIdentity {
  /** The caller's name, as authorisation rules match it. */
  readonly principal: string;
  /** What established it: `tls` (client certificate), `signature` (signed request), or an extension's own word. */
  readonly via: string;
  /** The client certificate, when `via` is `tls` or the connection also carried one. */
  readonly certificate?: PeerCertificate;
}

// Symbol.for: a protocol and a filter built against different copies of core still agree on the keys.
const PEER_CERTIFICATE = Symbol.for('weft.peer-certificate');
const CALLER_IDENTITY = Symbol.for('weft.caller-identity');

/**
 * The verified certificate of the connection a provider invocation arrived on (`undefined` without mTLS).
 *
 * @remarks Set by protocols (`tri`, `dubbo`) as a local attribute of the invocation, never read from the wire:
 * nothing a caller sends can forge it.
 * @example
 * ```ts
 * const cn = peerCertificateOf(invocation)?.commonName;
 * ```
 */
export function peerCertificateOf(invocation: Invocation): PeerCertificate | undefined {
  return invocation.getAttribute(PEER_CERTIFICATE) as PeerCertificate | undefined;
}

/**
 * Records the verified peer certificate of a provider invocation (for protocol implementations).
 *
 * @remarks Call it only with a certificate the TLS handshake verified.
 * @example
 * ```ts
 * setPeerCertificate(invocation, identityOfSocket(socket));
 * ```
 */
export function setPeerCertificate(invocation: Invocation, certificate: PeerCertificate | undefined): void {
  if (certificate !== undefined) invocation.setAttribute(PEER_CERTIFICATE, certificate);
}

/**
 * Who is calling: the identity an authenticating filter established (a verified signature), else the mTLS client
 * certificate's, else `undefined` (an anonymous caller).
 *
 * @remarks Per-method authorisation reads this, in a filter or in the implementation (through its invocation).
 * @example
 * ```ts
 * if (callerIdentityOf(invocation)?.principal !== 'ops') throw new RpcError(RpcErrorCode.FORBIDDEN, 'ops only');
 * ```
 */
export function callerIdentityOf(invocation: Invocation): CallerIdentity | undefined {
  const established = invocation.getAttribute(CALLER_IDENTITY) as CallerIdentity | undefined;
  if (established !== undefined) return established;
  const certificate = peerCertificateOf(invocation);
  if (certificate === undefined) return undefined;
  const principal = certificate.commonName ?? certificate.subjectAltNames[0]?.replace(/^[A-Za-z ]+:/, '');
  return principal === undefined || principal === '' ? undefined : { principal, via: 'tls', certificate };
}

/**
 * Records the caller identity an authenticating filter verified (for filters such as `@weft/filter-auth`).
 *
 * @remarks Only after verification: everything downstream trusts it.
 * @example
 * ```ts
 * setCallerIdentity(invocation, { principal: keyId, via: 'signature' });
 * ```
 */
export function setCallerIdentity(invocation: Invocation, identity: CallerIdentity): void {
  invocation.setAttribute(CALLER_IDENTITY, identity);
}

/**
 * How messages name the caller of a provider invocation: `consumer shop at 10.0.0.7:51234`, from the
 * `remote.application` and `remote.address` attachments the protocols set.
 *
 * @remarks For refusals (`token`, `auth`): names what is known, never more.
 * @example
 * ```ts
 * `call refused from ${describeCaller(invocation)}` // 'call refused from consumer shop at 10.0.0.7:51234'
 * ```
 */
export function describeCaller(invocation: Invocation): string {
  const application = invocation.getAttachment('remote.application');
  const address = invocation.getAttachment('remote.address');
  if (application !== undefined && address !== undefined) return `consumer ${String(application)} at ${String(address)}`;
  if (application !== undefined) return `consumer ${String(application)}`;
  if (address !== undefined) return `consumer at ${String(address)}`;
  return 'an unidentified consumer';
}
