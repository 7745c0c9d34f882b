import { defineService } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';

import { Forecast as ForecastDesc } from './gen/weft/demo/v1/forecast_pb.js';

/** The tour's service. */
export const Greeter = defineService('org.weft.demo.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

/** The tour's IDL service, defined from the descriptor protoc-gen-es generated from `proto/weft/demo/v1/forecast.proto`. */
export const Forecast = defineProtoService(ForecastDesc);

/** Messages between the tour and its child processes. */
export type Command =
  | {
      readonly type: 'call';
      readonly id: number;
      /** `plain`: a reference without mock; `guarded`: one with a fail mock. */
      readonly reference: 'plain' | 'guarded';
      readonly method: 'sayHello' | 'count';
      readonly args: readonly unknown[];
      readonly times: number;
    }
  | { readonly type: 'forecast'; readonly id: number; readonly city: string; readonly days: number }
  | { readonly type: 'mock-setting'; readonly id: number }
  | { readonly type: 'stop'; readonly id: number };

/** One call's outcome, as reported to the tour. */
export type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly code: string; readonly message: string };

/** A reply from a child process. */
export type Reply =
  | { readonly type: 'ready'; readonly detail: string }
  | { readonly type: 'result'; readonly id: number; readonly outcomes?: readonly Outcome[]; readonly value?: unknown };
