// Listen vs advertise: where a provider listens (bind.ip/bind.port) and what it registers (host/port), with the
// DUBBO_IP_TO_REGISTRY-style environment overrides, read from an injected environment.
import type { NetworkInterfaceInfo } from 'node:os';

import { describe, expect, it } from 'vitest';

import { ExtensionError, resolveServiceAddress, type AddressEnvironment, type ServiceAddressRequest } from '@weft/core';

const LAN: NodeJS.Dict<NetworkInterfaceInfo[]> = {
  lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
  eth0: [
    { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', mac: '02:42:ac:11:00:02', internal: false, cidr: 'fe80::1/64', scopeid: 2 },
    { address: '10.1.2.3', netmask: '255.255.0.0', family: 'IPv4', mac: '02:42:ac:11:00:02', internal: false, cidr: '10.1.2.3/16' },
  ],
};
const LOOPBACK_ONLY: NodeJS.Dict<NetworkInterfaceInfo[]> = { lo: LAN.lo };

function resolve(request: Partial<ServiceAddressRequest>, env: AddressEnvironment = {}, interfaces = LAN) {
  return resolveServiceAddress({ protocol: 'tri', defaultPort: 50051, ...request }, env, interfaces);
}

describe('resolveServiceAddress', () => {
  it.each([
    // [case, request, env, expected host:port registered, bind ip:port, anyhost]
    ['nothing set: loopback, the default port', {}, {}, '127.0.0.1:50051', '127.0.0.1:50051', false],
    ['host only: listens and registers there', { host: '10.9.9.9', port: 7000 }, {}, '10.9.9.9:7000', '10.9.9.9:7000', false],
    ['host 0.0.0.0: every address, registers the first non-internal IPv4', { host: '0.0.0.0', port: 7000 }, {}, '10.1.2.3:7000', '0.0.0.0:7000', true],
    ['host ::: the same for IPv6', { host: '::' }, {}, '10.1.2.3:50051', ':::50051', true],
    ['bind.ip 0.0.0.0 and host: host registered', { host: 'api.example.com', bindIp: '0.0.0.0' }, {}, 'api.example.com:50051', '0.0.0.0:50051', true],
    ['bind.port and port differ (NAT)', { port: 30080, bindIp: '0.0.0.0', bindPort: 8080 }, {}, '10.1.2.3:30080', '0.0.0.0:8080', true],
    ['bind.port only: registered too', { bindPort: 8080 }, {}, '127.0.0.1:8080', '127.0.0.1:8080', false],
    ['DUBBO_IP_TO_REGISTRY wins over host', { host: '0.0.0.0' }, { DUBBO_IP_TO_REGISTRY: '203.0.113.7' }, '203.0.113.7:50051', '0.0.0.0:50051', true],
    ['DUBBO_PORT_TO_REGISTRY wins over port', { port: 7000 }, { DUBBO_PORT_TO_REGISTRY: '31000' }, '127.0.0.1:31000', '127.0.0.1:7000', false],
    ['DUBBO_IP_TO_BIND wins over bind.ip and host', { host: '10.9.9.9', bindIp: '10.8.8.8' }, { DUBBO_IP_TO_BIND: '0.0.0.0' }, '10.9.9.9:50051', '0.0.0.0:50051', true],
    ['DUBBO_PORT_TO_BIND wins over bind.port', { port: 7000, bindPort: 7001 }, { DUBBO_PORT_TO_BIND: '7002' }, '127.0.0.1:7000', '127.0.0.1:7002', false],
    ['the WEFT_ alias', {}, { WEFT_IP_TO_REGISTRY: '198.51.100.1', WEFT_IP_TO_BIND: '0.0.0.0' }, '198.51.100.1:50051', '0.0.0.0:50051', true],
    ['DUBBO_ and WEFT_ set alike', {}, { DUBBO_IP_TO_REGISTRY: '198.51.100.1', WEFT_IP_TO_REGISTRY: '198.51.100.1' }, '198.51.100.1:50051', '127.0.0.1:50051', false],
    ['the protocol-specific form first', {}, { TRI_DUBBO_IP_TO_REGISTRY: '192.0.2.1', DUBBO_IP_TO_REGISTRY: '192.0.2.2' }, '192.0.2.1:50051', '127.0.0.1:50051', false],
    ['blank env values are unset', { host: '10.9.9.9' }, { DUBBO_IP_TO_REGISTRY: '  ', DUBBO_IP_TO_BIND: '' }, '10.9.9.9:50051', '10.9.9.9:50051', false],
  ] as const)('%s', (_case, request, env, registered, bound, anyhost) => {
    const address = resolve(request, env);
    expect(`${address.host}:${address.port}`).toBe(registered);
    expect(`${address.bindIp}:${address.bindPort}`).toBe(bound);
    expect(address.anyhost).toBe(anyhost);
    expect(address.warning).toBeUndefined();
  });

  it('never registers a wildcard: with no external interface it registers loopback and says why', () => {
    const address = resolve({ host: '0.0.0.0' }, {}, LOOPBACK_ONLY);
    expect(address).toMatchObject({ host: '127.0.0.1', bindIp: '0.0.0.0', anyhost: true });
    expect(address.warning).toBe(
      'listening on 0.0.0.0 but no non-loopback IPv4 interface was found: registering 127.0.0.1, which only this machine can reach. ' +
        'Set host (or DUBBO_IP_TO_REGISTRY) to the address consumers should use.',
    );
  });

  it('refuses env values that are no address or port, naming the variable', () => {
    expect(() => resolve({}, { DUBBO_IP_TO_REGISTRY: '0.0.0.0' })).toThrow(ExtensionError);
    expect(() => resolve({}, { DUBBO_IP_TO_REGISTRY: '0.0.0.0' })).toThrow(
      "DUBBO_IP_TO_REGISTRY=0.0.0.0 is not an address consumers can reach; set it to this host's address (or unset it).",
    );
    expect(() => resolve({}, { DUBBO_PORT_TO_REGISTRY: '80a' })).toThrow('DUBBO_PORT_TO_REGISTRY=80a is not a port (1-65535).');
    expect(() => resolve({}, { TRI_DUBBO_PORT_TO_BIND: '70000' })).toThrow('TRI_DUBBO_PORT_TO_BIND=70000 is not a port (1-65535).');
    expect(() => resolve({}, { DUBBO_IP_TO_BIND: '10.0.0.1', WEFT_IP_TO_BIND: '10.0.0.2' })).toThrow(
      'DUBBO_IP_TO_BIND=10.0.0.1 and WEFT_IP_TO_BIND=10.0.0.2 disagree; set one of them.',
    );
  });
});
