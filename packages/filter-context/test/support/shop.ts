import { setTimeout as sleep } from 'node:timers/promises';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invoker,
  RpcContext,
  URL,
  WeftApplication,
  type AttachmentValue,
  type Invocation,
  type Result,
} from '@weft/core';
import { getServerAttachments } from '@weft/filter-context';
import { createTestApp, RecordingLogger, StubInvoker as SharedStubInvoker } from '@weft/test-utils';

/** Core, the cluster strategies (a reference needs one) and this package. */
export const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/filter-context'] as const;

/** What an implementation saw of `RpcContext.current()` (plain data: it travels back through the injvm copy). */
export type Seen = {
  readonly present: boolean;
  readonly side?: string;
  readonly methodName?: string;
  readonly remoteApplication?: string;
  readonly deadline?: number;
  readonly hasParent?: boolean;
  readonly path?: string;
  /** Every attachment of the incoming invocation. */
  readonly attachments?: Record<string, AttachmentValue>;
  /** `getServerAttachments()`. */
  readonly server?: Record<string, AttachmentValue>;
};

/** Snapshots the current context. */
export function seen(context: RpcContext | undefined = RpcContext.current()): Seen {
  if (context === undefined) return { present: false };
  return {
    present: true,
    side: context.side,
    methodName: context.methodName,
    remoteApplication: context.remoteApplication,
    deadline: context.deadline,
    hasParent: context.parent !== undefined,
    path: context.url.path,
    attachments: Object.fromEntries(context.invocation.getAttachments()),
    server: Object.fromEntries(getServerAttachments(context)),
  };
}

/** The downstream service: called from inside `Orders`' implementation. */
export const Stock = defineService('org.acme.Stock', {
  reserve: { args: [String], returns: Object },
});

/** The upstream service: its implementation calls `Stock`. */
export const Orders = defineService('org.acme.Orders', {
  place: { args: [String], returns: Object },
  inspect: { returns: Object },
});

/** A started application and how to stop it. */
export interface Started {
  readonly app: WeftApplication;
  readonly logger: RecordingLogger;
  close(): Promise<void>;
}

/** Starts an application named `shop` with the given packages installed. */
export async function startApp(packages: readonly string[] = PACKAGES): Promise<Started> {
  const { root, cleanup } = createTestApp(packages);
  const logger = new RecordingLogger();
  let app: WeftApplication;
  try {
    app = await WeftApplication.start({ root, name: 'shop', logger });
  } catch (error) {
    cleanup();
    throw error;
  }
  return {
    app,
    logger,
    close: async () => {
      try {
        await app.shutdown({ timeout: 1000 });
      } finally {
        cleanup();
      }
    },
  };
}

/** The shared stub, also recording the context each call saw when it reached it. */
export class StubInvoker extends SharedStubInvoker {
  readonly seenContexts: (RpcContext | undefined)[] = [];

  override invoke(invocation: Invocation): Result | Promise<Result> {
    this.seenContexts.push(RpcContext.current());
    return super.invoke(invocation);
  }
}

/** A provider URL and a consumer URL of `Stock` in application `shop`. */
export const STOCK_URLS = {
  provider: URL.parse('injvm://127.0.0.1/org.acme.Stock?interface=org.acme.Stock&side=provider&application=shop'),
  consumer: URL.parse('injvm://127.0.0.1/org.acme.Stock?interface=org.acme.Stock&side=consumer&application=shop'),
} as const;

/**
 * The chain the loader activates for `side` (only this package's filter, with no other package installed but
 * core and cluster) around `inner`, as the protocol builds it.
 */
export function chainAround(app: WeftApplication, side: 'provider' | 'consumer', inner: Invoker): Invoker {
  const filters = app.model.getExtensionLoader(Filter);
  const key = side === 'provider' ? 'service.filter' : 'reference.filter';
  const active = filters.getActivateExtensions(inner.getUrl(), key, side);
  return buildFilterChain(inner, active, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
}

/** A random delay of 0..max ms. */
export function jitter(max: number): Promise<void> {
  return sleep(Math.floor(Math.random() * (max + 1)));
}

export { sleep };
