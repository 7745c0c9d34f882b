import { RpcError, RpcErrorCode, javaClassOf, type TypeDescriptor } from '@weft/core';
import { classDef, type ClassDef } from '../java/class-def.js';
import { JavaThrowable } from '../java/java-throwable.js';
import type { HessianEncoder } from './hessian-encoder.js';
import type { WriterCompiler } from './writer-compiler.js';

const JAVA_CLASS_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
const STACK_TRACE_ELEMENT = classDef('java.lang.StackTraceElement', ['declaringClass', 'methodName', 'fileName', 'lineNumber']);
const STACK_TRACE_TYPE = '[java.lang.StackTraceElement';
/** Frames sent with an exception, at most. */
const MAX_FRAMES = 32;
/** `    at Class.method (file:line:col)` or `    at file:line:col`. */
const FRAME = /^\s*at (?:(.+?) \()?(.*?):(\d+):\d+\)?$/;

interface Frame {
  readonly declaringClass: string;
  readonly methodName: string;
  readonly fileName: string;
  readonly lineNumber: number;
}

/** The V8 stack of `error` as Java `StackTraceElement`s (the function's receiver as the class, `js` when none). */
export function framesOf(error: Error): Frame[] {
  const frames: Frame[] = [];
  const stack = typeof error.stack === 'string' ? error.stack.split('\n') : [];
  for (const line of stack) {
    if (frames.length >= MAX_FRAMES) break;
    const match = FRAME.exec(line);
    if (match === null) continue;
    const where = (match[1] ?? '<anonymous>').replace(/^async /, '');
    const dot = where.lastIndexOf('.');
    const file = (match[2] as string).replace(/^file:\/\//, '');
    frames.push({
      declaringClass: dot > 0 ? where.slice(0, dot) : 'js',
      methodName: dot > 0 ? where.slice(dot + 1) : where,
      fileName: file.slice(file.lastIndexOf('/') + 1),
      lineNumber: Number(match[3]),
    });
  }
  return frames;
}

/** The exception class a Java peer should instantiate for `error`. */
export function throwableClassOf(error: Error): string {
  const declared = javaClassOf(error.constructor);
  if (declared !== undefined) return declared;
  return JAVA_CLASS_NAME.test(error.name) ? error.name : 'java.lang.RuntimeException';
}

/**
 * Writes an `Error` as a Java `Throwable`: `detailMessage`, `stackTrace` (its V8 frames, or the Java frames of a
 * Throwable read earlier), `cause` when it has a real one (a nested Throwable), and the fields its class declares in
 * `static fields` (e.g. a `code`).
 *
 * @remarks hessian-lite reads it back as that exception with `getCause() == null` when there is no cause (the field
 * is left out, so Java's own `cause = this` default holds).
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
  const own = ['detailMessage', 'stackTrace', ...(hasCause ? ['cause'] : [])];
  const fields = [...own, ...extra.filter((f) => !own.includes(f))];
  const def: ClassDef = classDef(throwableClassOf(value), fields);
  e.objectStart(def);
  e.string(value.message);
  const frames = value instanceof JavaThrowable ? value.javaStackTrace : framesOf(value);
  e.anonymous();
  e.listStart(frames.length, STACK_TRACE_TYPE);
  for (const frame of frames) {
    e.anonymous();
    e.objectStart(STACK_TRACE_ELEMENT);
    e.string(frame.declaringClass);
    e.string(frame.methodName);
    if (frame.fileName === null) e.byte(0x4e);
    else e.string(frame.fileName);
    e.int(frame.lineNumber);
  }
  if (hasCause) writeThrowable(e, cause, compiler);
  for (const field of fields.slice(own.length)) {
    compiler.fieldWriter((declared as Record<string, TypeDescriptor>)[field] as TypeDescriptor)(e, (value as unknown as Record<string, unknown>)[field]);
  }
  e.depth--;
}
