import { RpcError, RpcErrorCode, javaClassOf, type TypeDescriptor } from '@weft/core';
import { classDef, type ClassDef } from '../java/class-def.js';
import type { HessianEncoder } from './hessian-encoder.js';
import type { WriterCompiler } from './writer-compiler.js';

const JAVA_CLASS_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;

/** The exception class a Java peer should instantiate for `error`. */
export function throwableClassOf(error: Error): string {
  const declared = javaClassOf(error.constructor);
  if (declared !== undefined) return declared;
  return JAVA_CLASS_NAME.test(error.name) ? error.name : 'java.lang.RuntimeException';
}

/**
 * Writes an `Error` as a Java `Throwable`: `detailMessage`, `cause` when it has a real one (a nested Throwable), and
 * the fields its class declares in `static fields` (e.g. a `code`).
 *
 * @remarks The minimal shape hessian-lite reads back as that exception with `getCause() == null` when there is no
 * cause (the field is left out, so Java's own `cause = this` default holds) and its own stack trace.
 */
export function writeThrowable(e: HessianEncoder, value: unknown, compiler: WriterCompiler): void {
  if (value === null || value === undefined) {
    e.byte(0x4e);
    return;
  }
  if (!(value instanceof Error)) throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: expected an Error, got ${typeof value}.`);
  if (e.ref(value)) return;
  e.enter();
  const cause = (value as { cause?: unknown }).cause;
  const hasCause = cause instanceof Error;
  const declared = (value.constructor as { fields?: unknown }).fields;
  const extra = typeof declared === 'object' && declared !== null && javaClassOf(value.constructor) !== undefined ? Object.keys(declared) : [];
  const fields = ['detailMessage', ...(hasCause ? ['cause'] : []), ...extra.filter((f) => f !== 'detailMessage' && f !== 'cause')];
  const def: ClassDef = classDef(throwableClassOf(value), fields);
  e.objectStart(def);
  e.string(value.message);
  if (hasCause) writeThrowable(e, cause, compiler);
  for (const field of fields.slice(hasCause ? 2 : 1)) {
    compiler.fieldWriter((declared as Record<string, TypeDescriptor>)[field] as TypeDescriptor)(e, (value as unknown as Record<string, unknown>)[field]);
  }
  e.depth--;
}
