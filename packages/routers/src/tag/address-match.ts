const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** An IPv4 address as a 32-bit unsigned number, or `undefined`. */
function ipv4(host: string): number | undefined {
  const m = IPV4.exec(host);
  if (m === null) return undefined;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = Number(m[i]);
    if (part > 255) return undefined;
    n = n * 256 + part;
  }
  return n;
}

/** One segment of an IP pattern: `*`, `a-b` or a number. */
function segmentMatches(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  const dash = pattern.indexOf('-');
  if (dash > 0) {
    const v = Number(value);
    return v >= Number(pattern.slice(0, dash)) && v <= Number(pattern.slice(dash + 1));
  }
  return pattern === value;
}

/**
 * Whether a provider address matches one tag-rule address (Dubbo's `NetUtils.matchIpExpression`, plus
 * `0.0.0.0:<port>`).
 *
 * @remarks `a.b.c.d/n` (CIDR, port ignored); `*` or `*.*.*.*` (any); `host[:port]`, where a given port must
 * equal and each IPv4 segment may be `*` or a range `a-b`; `0.0.0.0:<port>` (any host on that port). A host name is
 * compared as written (no DNS lookup, unlike Dubbo).
 * @example
 * ```ts
 * matchAddress('10.0.1.0/24', '10.0.1.7', 20880); // true
 * ```
 */
export function matchAddress(pattern: string, host: string, port: number): boolean {
  const p = pattern.trim();
  if (p === '*' || p === '*.*.*.*') return true;
  const slash = p.indexOf('/');
  if (slash >= 0) {
    const base = ipv4(p.slice(0, slash));
    const bits = Number(p.slice(slash + 1));
    const h = ipv4(host);
    if (base === undefined || h === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
    if (bits === 0) return true;
    const shift = 32 - bits;
    return Math.floor(base / 2 ** shift) === Math.floor(h / 2 ** shift);
  }
  let hostPattern = p;
  const colon = p.lastIndexOf(':');
  if (colon > 0 && !p.includes('[') && p.indexOf(':') === colon) {
    const portPattern = p.slice(colon + 1);
    hostPattern = p.slice(0, colon);
    if (portPattern !== '*' && Number(portPattern) !== port) return false;
    if (hostPattern === '0.0.0.0') return true;
  }
  const segments = hostPattern.split('.');
  const values = host.split('.');
  if (segments.length === 4 && values.length === 4 && ipv4(host) !== undefined) {
    return segments.every((s, i) => segmentMatches(s, values[i]!));
  }
  return hostPattern === host;
}

/** Whether a pattern is one {@link matchAddress} understands (for validating rules). */
export function isAddressPattern(pattern: string): boolean {
  const p = pattern.trim();
  if (p === '') return false;
  if (p.includes('/')) {
    const [base, bits] = p.split('/');
    return ipv4(base ?? '') !== undefined && /^\d+$/.test(bits ?? '') && Number(bits) <= 32;
  }
  return /^[\w.*\-:[\]]+$/.test(p);
}
