// Errors as data across a call boundary (errorToData / errorFromData), and the same through injvm in copy mode:
// only a real RpcError is revived as an RpcError; a business error named RpcError, or carrying a code, stays a
// business error; data named like an inherited method (toString, valueOf…) never breaks String(error).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, errorFromData, errorToData, Logger, RpcError, RpcErrorCode, WeftApplication, type ErrorData } from '@weft/core';
import { RPC_ERROR_MARK } from '@weft/core/spi';

import { FirstCluster } from './support/first-cluster.js';

class Declined extends Error {
  override name = 'Declined';
  summary(): string {
    return `declined (${this.message})`;
  }
  get loud(): string {
    return this.message.toUpperCase();
  }
}

/** Round trip through JSON, as the wire does. */
function overTheWire(error: unknown, declared: readonly (new (message: string) => Error)[] = []): Error {
  return errorFromData(JSON.parse(JSON.stringify(errorToData(error))) as ErrorData, declared);
}

describe('errorToData / errorFromData: framework failures vs business errors', () => {
  it('a real RpcError is revived as an RpcError with its code and message', () => {
    const revived = overTheWire(new RpcError(RpcErrorCode.TIMEOUT, 'Call org.acme.Stock.reserve() timed out after 200 ms.'));
    expect(revived).toBeInstanceOf(RpcError);
    expect((revived as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(revived.message).toBe('Call org.acme.Stock.reserve() timed out after 200 ms.');
    expect(String(revived)).toBe('RpcError: Call org.acme.Stock.reserve() timed out after 200 ms.');
  });

  it('a business error named RpcError with a valid code stays a business error (a plain Error named RpcError)', () => {
    const forged = Object.assign(new Error('my own failure'), { name: 'RpcError', code: 'timeout' });
    const revived = overTheWire(forged);
    expect(revived).not.toBeInstanceOf(RpcError);
    expect(revived).toBeInstanceOf(Error);
    expect(revived.name).toBe('RpcError');
    expect((revived as Error & { code?: unknown }).code).toBe('timeout');
    expect(String(revived)).toBe('RpcError: my own failure');
  });

  it('data written by hand with name RpcError and a code (no mark) is a business error too', () => {
    const revived = errorFromData({ name: 'RpcError', message: 'hand-made', code: 'limit-exceeded' });
    expect(revived).not.toBeInstanceOf(RpcError);
    expect(revived.name).toBe('RpcError');
  });

  it('a business error cannot carry the mark: errorToData drops it from its own properties', () => {
    const forged = Object.assign(new Error('sneaky'), { [RPC_ERROR_MARK]: 'timeout', code: 'timeout', name: 'RpcError' });
    const data = errorToData(forged);
    expect(Object.keys(data)).not.toContain(RPC_ERROR_MARK);
    expect(overTheWire(forged)).not.toBeInstanceOf(RpcError);
  });

  it('any error class carrying a code field stays what it is', () => {
    const revived = overTheWire(Object.assign(new Declined('out of stock'), { code: 'no-invoker' }), [Declined]);
    expect(revived).toBeInstanceOf(Declined);
    expect(revived).not.toBeInstanceOf(RpcError);
    expect((revived as Declined & { code: string }).code).toBe('no-invoker');
  });

  it('a mark with an unknown code does not make an RpcError either', () => {
    const revived = errorFromData({ name: 'RpcError', message: 'x', [RPC_ERROR_MARK]: 'exploded' });
    expect(revived).not.toBeInstanceOf(RpcError);
    expect(Object.keys(revived)).not.toContain(RPC_ERROR_MARK);
  });
});

describe('errorFromData: data named like inherited methods never breaks the error', () => {
  it('own toString / valueOf / hasOwnProperty data properties are dropped: String(error) works', () => {
    const hostile = Object.assign(new Error('boom'), { toString: 'not a function', valueOf: 42, hasOwnProperty: true, detail: 'kept' });
    const revived = overTheWire(hostile);
    expect(String(revived)).toBe('Error: boom');
    expect(`${revived}`).toBe('Error: boom');
    expect(Object.prototype.hasOwnProperty.call(revived, 'toString')).toBe(false);
    expect(revived.hasOwnProperty('detail')).toBe(true);
    expect((revived as Error & { detail: string }).detail).toBe('kept');
  });

  it('for a declared class: its methods and getters keep working (data named summary / loud is ignored)', () => {
    const data: ErrorData = { name: 'Declined', message: 'late', summary: 'hijacked', loud: 'hijacked', toString: 'x', reason: 'r' };
    const revived = errorFromData(data, [Declined]);
    expect(revived).toBeInstanceOf(Declined);
    expect((revived as Declined).summary()).toBe('declined (late)');
    expect((revived as Declined).loud).toBe('LATE');
    expect(String(revived)).toBe('Declined: late');
    expect((revived as Declined & { reason: string }).reason).toBe('r');
  });

  it('a standard error class keeps its name and message', () => {
    const revived = errorFromData({ name: 'TypeError', message: 'bad', toString: 'x', constructor: 'y' });
    expect(revived).toBeInstanceOf(TypeError);
    expect(String(revived)).toBe('TypeError: bad');
  });

  it('a thrown value whose own conversion throws is captured as a tag, not a crash', () => {
    const data = errorToData(Object.create(null));
    expect(data).toEqual({ name: 'Error', message: '[object Object]' });
  });
});

class QuietLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}

const Stock = defineService('org.acme.Stock', {
  reserve: { args: [String], returns: Boolean },
  release: { args: [String], returns: Boolean },
  audit: { args: [String], returns: Boolean },
});

describe('injvm in copy mode (the default): the same rules as the wire', () => {
  const roots: string[] = [];
  const apps: WeftApplication[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.shutdown();
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  async function startApp(): Promise<WeftApplication> {
    const root = mkdtempSync(join(tmpdir(), 'weft-error-data-'));
    roots.push(root);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
    const app = await WeftApplication.start({ root, name: 't', logger: new QuietLogger() });
    apps.push(app);
    app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
    return app;
  }

  it('a real RpcError passed on by the implementation arrives as an RpcError; a forged one as a business error', async () => {
    const app = await startApp();
    await app.export(Stock, {
      reserve: () => Promise.reject(new RpcError(RpcErrorCode.TIMEOUT, 'downstream org.acme.Ledger.book() timed out')),
      release: () => {
        throw Object.assign(new Error('release refused'), { name: 'RpcError', code: 'timeout' });
      },
      audit: () => {
        throw Object.assign(new Error('audit failed'), { toString: 'nope', valueOf: 'nope' });
      },
    });
    const stock = await app.refer(Stock);

    const real = await stock.reserve('x').catch((e: unknown) => e);
    expect(real).toBeInstanceOf(RpcError);
    expect((real as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(String(real)).toBe('RpcError: downstream org.acme.Ledger.book() timed out');

    const forged = await stock.release('x').catch((e: unknown) => e);
    expect(forged).not.toBeInstanceOf(RpcError);
    expect((forged as Error).name).toBe('RpcError');
    expect(String(forged)).toBe('RpcError: release refused');

    const hostile = await stock.audit('x').catch((e: unknown) => e);
    expect(String(hostile)).toBe('Error: audit failed');
  });
});
