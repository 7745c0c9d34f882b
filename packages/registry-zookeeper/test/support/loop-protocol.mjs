// A minimal test-only transport, `loop`: JSON over HTTP/1.1 on loopback. It stands in for a real protocol in the
// registry tests (the registry does not care which protocol a provider URL names), so that providers in other
// processes can be called, killed and counted. Not a product: no streaming, no attachments beyond the token.
import { createServer, request } from 'node:http';

import { AbstractInvoker, Exporter, Invocation, Protocol, Result, RpcError, RpcErrorCode } from '@weft/core';

class LoopExporter extends Exporter {
  constructor(invoker, onUnexport) {
    super();
    this.invoker = invoker;
    this.onUnexport = onUnexport;
  }
  getInvoker() {
    return this.invoker;
  }
  async unexport() {
    await this.onUnexport();
  }
}

class LoopInvoker extends AbstractInvoker {
  constructor(service, url) {
    super(url);
    this.service = service;
  }
  doInvoke(invocation) {
    const url = this.getUrl();
    const body = JSON.stringify({ args: invocation.args });
    const path = `/${encodeURIComponent(url.getServiceKey() ?? this.service.name)}/${encodeURIComponent(invocation.methodName)}`;
    return new Promise((resolve, reject) => {
      const req = request({ host: url.host, port: url.port, method: 'POST', path, headers: { 'content-type': 'application/json' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let reply;
          try {
            reply = JSON.parse(text);
          } catch {
            reject(new RpcError(RpcErrorCode.NETWORK, `loop: bad reply from ${url.getAddress()}: ${text.slice(0, 100)}`));
            return;
          }
          if (res.statusCode === 200) resolve(Result.of(reply.value ?? null));
          else if (reply.biz === true) resolve(Result.ofException(new Error(reply.message)));
          else reject(new RpcError(reply.code ?? RpcErrorCode.UNKNOWN, `loop: ${reply.message}`));
        });
        res.on('error', (error) => reject(new RpcError(RpcErrorCode.NETWORK, `loop: ${error.message}`, { cause: error })));
      });
      req.on('error', (error) => reject(new RpcError(RpcErrorCode.NETWORK, `loop: cannot reach ${url.getAddress()}: ${error.message}`, { cause: error })));
      req.end(body);
    });
  }
}

/** Extension `loop` of `weft.rpc.Protocol` (registered programmatically by the tests). */
export class LoopProtocol extends Protocol {
  constructor() {
    super();
    /** port → { server, services: Map<serviceKey, invoker> } */
    this.servers = new Map();
  }

  getDefaultPort() {
    return 0;
  }

  async export(invoker) {
    const url = invoker.getUrl();
    const key = url.getServiceKey() ?? url.path;
    let entry = this.servers.get(url.port);
    if (entry === undefined) {
      const services = new Map();
      const server = createServer((req, res) => this.handle(services, req, res));
      server.keepAliveTimeout = 1000;
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(url.port, url.host || '127.0.0.1', resolve);
      });
      entry = { server, services };
      this.servers.set(url.port, entry);
    }
    entry.services.set(key, invoker);
    const owner = entry;
    return new LoopExporter(invoker, async () => {
      owner.services.delete(key);
      if (owner.services.size === 0 && this.servers.get(url.port) === owner) {
        this.servers.delete(url.port);
        await closeServer(owner.server);
      }
    });
  }

  async refer(service, url) {
    return new LoopInvoker(service, url);
  }

  async destroy() {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((e) => closeServer(e.server)));
  }

  handle(services, req, res) {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (text += chunk));
    req.on('end', async () => {
      const [, rawKey = '', rawMethod = ''] = (req.url ?? '').split('/');
      const invoker = services.get(decodeURIComponent(rawKey));
      const reply = (status, json) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (invoker === undefined) {
        reply(404, { code: RpcErrorCode.NO_INVOKER, message: `no service ${decodeURIComponent(rawKey)} here` });
        return;
      }
      try {
        const { args } = JSON.parse(text || '{}');
        const result = await invoker.invoke(Invocation.of(decodeURIComponent(rawMethod), args ?? []));
        if (result.hasException()) reply(500, { biz: true, message: String(result.exception?.message ?? result.exception) });
        else reply(200, { value: result.value ?? null });
      } catch (error) {
        reply(500, { code: error?.code ?? RpcErrorCode.UNKNOWN, message: String(error?.message ?? error) });
      }
    });
  }
}

function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });
}
