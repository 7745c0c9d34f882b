import { setTimeout as sleep } from 'node:timers/promises';

import { defineService, RpcContext, WeftApplication, type AttachmentValue } from '@weft/core';
import { getServerAttachments } from '@weft/filter-context';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

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

/** A random delay of 0..max ms. */
export function jitter(max: number): Promise<void> {
  return sleep(Math.floor(Math.random() * (max + 1)));
}

export { sleep };
