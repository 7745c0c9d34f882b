// The invocation's attachments: a lone one lives in two fields (no map); a second one, or reading them all, makes
// the map. Every reader sees the same attachments whichever form holds them.
import { describe, expect, it } from 'vitest';

import { Invocation, PendingResult, Result } from '@weft/core';

describe('Invocation attachments', () => {
  it('keeps a lone attachment readable, replaceable and removable', () => {
    const invocation = Invocation.of('m', []);
    expect(invocation.hasAttachments()).toBe(false);
    expect(invocation.hasAttachment('a')).toBe(false);
    invocation.setAttachment('a', 1);
    expect(invocation.hasAttachments()).toBe(true);
    expect(invocation.hasAttachment('a')).toBe(true);
    expect(invocation.hasAttachment('b')).toBe(false);
    expect(invocation.getAttachment('a')).toBe(1);
    expect(invocation.getAttachment('b')).toBeUndefined();
    invocation.setAttachment('a', 'two');
    expect(invocation.getAttachment('a')).toBe('two');
    invocation.removeAttachment('b');
    expect(invocation.getAttachment('a')).toBe('two');
    invocation.removeAttachment('a');
    expect(invocation.hasAttachments()).toBe(false);
    expect(invocation.getAttachment('a')).toBeUndefined();
    expect([...invocation.getAttachments()]).toEqual([]);
  });

  it('moves to a map for a second attachment, in insertion order, and getAttachments stays a live view', () => {
    const invocation = Invocation.of('m', []);
    invocation.setAttachment('a', 1).setAttachment('b', false);
    expect([...invocation.getAttachments()]).toEqual([
      ['a', 1],
      ['b', false],
    ]);
    const lone = Invocation.of('m', []);
    lone.setAttachment('x', 'y');
    const view = lone.getAttachments();
    expect([...view]).toEqual([['x', 'y']]);
    lone.setAttachment('z', 3);
    expect([...view]).toEqual([
      ['x', 'y'],
      ['z', 3],
    ]);
    lone.removeAttachment('x');
    expect(lone.hasAttachment('x')).toBe(false);
    expect([...view]).toEqual([['z', 3]]);
  });

  it('copies attachments to another invocation, lone or many, without sharing them', () => {
    const lone = Invocation.of('m', []);
    lone.setAttachment('remote.application', 'shop');
    const target = Invocation.of('m', []);
    target.setAttachment('token', 't');
    lone.copyAttachmentsTo(target);
    expect([...target.getAttachments()]).toEqual([
      ['token', 't'],
      ['remote.application', 'shop'],
    ]);
    const many = new Invocation({ methodName: 'm', attachments: { a: 1, b: 2 } });
    const copy = Invocation.of('m', []);
    many.copyAttachmentsTo(copy);
    copy.setAttachment('c', 3);
    expect([...copy.getAttachments()].map(([k]) => k)).toEqual(['a', 'b', 'c']);
    expect(many.hasAttachment('c')).toBe(false);
    Invocation.of('m', []).copyAttachmentsTo(copy);
    expect(copy.getAttachments().size).toBe(3);
  });
});

describe('PendingResult.deliverTo (the proxy’s bridge to a native promise)', () => {
  function delivered(pending: PendingResult<unknown>): { promise: Promise<unknown>; exits: string[] } {
    const exits: string[] = [];
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((res, rej) => {
      resolve = (v) => {
        exits.push('resolve');
        res(v);
      };
      reject = (e) => {
        exits.push('reject');
        rej(e);
      };
    });
    pending.deliverTo(resolve, reject, { exit: () => exits.push('exit') });
    return { promise, exits };
  }

  it('resolves with a Result’s value, rejects with its business error or with the rejection, counting out first', async () => {
    const ok = new PendingResult<Result>();
    const a = delivered(ok);
    expect(a.exits).toEqual([]);
    ok.resolve(Result.of('hi'));
    expect(a.exits).toEqual(['exit', 'resolve']);
    await expect(a.promise).resolves.toBe('hi');

    const business = new PendingResult<Result>();
    const b = delivered(business);
    const error = new RangeError('no funds');
    business.resolve(Result.ofException(error));
    await expect(b.promise).rejects.toBe(error);
    expect(b.exits).toEqual(['exit', 'reject']);

    const failed = new PendingResult<Result>();
    const c = delivered(failed);
    const framework = new Error('reset');
    failed.reject(framework);
    await expect(c.promise).rejects.toBe(framework);
    expect(c.exits).toEqual(['exit', 'reject']);
  });

  it('delivers at once an outcome that already arrived, after the other reactions of a pending one', async () => {
    const settled = new PendingResult<Result>();
    settled.resolve(Result.of(7));
    const d = delivered(settled);
    expect(d.exits).toEqual(['exit', 'resolve']);
    await expect(d.promise).resolves.toBe(7);

    const pending = new PendingResult<Result>();
    const order: string[] = [];
    pending.whenComplete(
      () => order.push('listener'),
      () => order.push('listener failed'),
    );
    const e = delivered(pending);
    pending.resolve(Result.of(1));
    order.push(...e.exits);
    expect(order).toEqual(['listener', 'exit', 'resolve']);
  });
});
