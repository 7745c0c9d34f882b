// Builds real router chains (core's RouterChain, this package's routers) over stub providers.
import { defineService, Invocation, Result, RouterChain, URL, type Invoker, type Router, type RouterContext } from '@weft/core';
import { RecordingLogger, StubInvoker } from '@weft/test-utils';

import { ConditionRouter, TagRouter } from '@weft/routers';

export const BarService = defineService('com.foo.BarService', {
  findUser: { args: [String], returns: String },
  getUser: { args: [Object], returns: String },
});

/** A provider stub whose URL is the registered one. */
export function provider(text: string): StubInvoker {
  return new StubInvoker(URL.parse(text), () => Result.of('ok'));
}

export interface Harness {
  readonly chain: RouterChain;
  readonly logger: RecordingLogger;
  readonly invokers: readonly StubInvoker[];
  /** `host[:port]` of the selected providers, in order. */
  route(invocation: Invocation): string[];
}

/** One chain with the given routers (created from a context over `invokers`), rules applied. */
export function harness(
  kinds: readonly ('tag' | 'condition')[],
  consumer: string,
  providers: readonly string[],
  rules: readonly URL[],
  registered?: (invoker: Invoker) => URL | undefined,
): Harness {
  const logger = new RecordingLogger();
  const invokers = providers.map(provider);
  const consumerUrl = URL.parse(consumer);
  const context: RouterContext = {
    service: BarService,
    consumerUrl,
    logger,
    providerUrlOf: registered ?? ((invoker) => invoker.getUrl()),
  };
  const routers: { name: string; router: Router }[] = kinds.map((k) => ({ name: k, router: k === 'tag' ? new TagRouter(context) : new ConditionRouter(context) }));
  const chain = new RouterChain(routers, logger);
  chain.setRules(rules);
  chain.setInvokers(invokers, consumerUrl);
  return {
    chain,
    logger,
    invokers,
    route: (invocation) => chain.route(invocation).map((i) => i.getUrl().getAddress()),
  };
}

/** A legacy `routers` URL for a condition rule, as Dubbo 2.7 and dubbo-admin register it. */
export function conditionUrl(rule: string, params: Record<string, string> = {}): URL {
  const extra = Object.entries(params).map(([k, v]) => `&${k}=${v}`).join('');
  return URL.parse(`condition://0.0.0.0/com.foo.BarService?category=routers&rule=${URL.encode(rule)}${extra}`);
}

/** A config-centre rule, as a registry delivers it in the `routers` category. */
export function configRule(router: 'condition' | 'tag', yaml: string, source: string, scope = 'service'): URL {
  return new URL({
    protocol: 'route',
    host: '0.0.0.0',
    path: 'com.foo.BarService',
    parameters: new Map([
      ['category', 'routers'],
      ['router', router],
      ['rule.scope', scope],
      ['rule.source', source],
      ['rule.yaml', yaml],
    ]),
  });
}

export function call(methodName: string, args: unknown[] = [], attachments: Record<string, string> = {}): Invocation {
  return new Invocation({ methodName, args, attachments });
}
