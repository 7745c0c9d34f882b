// ApplicationEvents: the application-scoped event channel observers (metrics, logs) listen on without importing the
// packages that emit. Delivery order, the `*` wildcard, unsubscribing, `listening`, a throwing listener logged and
// kept away from the emitter, one channel per application.
import { describe, expect, it } from 'vitest';

import { ApplicationEvents, FrameworkModel, type WeftEvent } from '@weft/core';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

describe('ApplicationEvents', () => {
  it('delivers to the listeners of the type, then to `*`, in subscription order; unsubscribing stops delivery', () => {
    const events = new ApplicationEvents(new RecordingLogger());
    const seen: string[] = [];
    const stopA = events.on('mock.fail', (e) => seen.push(`a:${e.type}:${e.method ?? ''}`));
    events.on('*', (e) => seen.push(`all:${e.type}`));
    events.on('mock.fail', () => seen.push('b'));
    expect([events.listening('mock.fail'), events.listening('limit.refused')]).toEqual([true, true]);
    events.emit({ type: 'mock.fail', service: 'org.acme.Greeter', method: 'sayHello' });
    events.emit({ type: 'limit.refused', limiter: 'tps' });
    stopA();
    events.emit({ type: 'mock.fail', method: 'again' });
    expect(seen).toEqual(['a:mock.fail:sayHello', 'b', 'all:mock.fail', 'all:limit.refused', 'b', 'all:mock.fail']);
  });

  it('is not listening without listeners, and emitting then does nothing', () => {
    const events = new ApplicationEvents(new RecordingLogger());
    expect(events.listening('mock.force')).toBe(false);
    const stop = events.on('mock.force', () => undefined);
    expect(events.listening('mock.force')).toBe(true);
    stop();
    expect(events.listening('mock.force')).toBe(false);
    expect(() => events.emit({ type: 'mock.force' })).not.toThrow();
  });

  it('logs a throwing listener and still delivers to the others; the emitter never sees the error', () => {
    const logger = new RecordingLogger();
    const events = new ApplicationEvents(logger);
    const seen: WeftEvent[] = [];
    events.on('registry.notify', () => {
      throw new Error('listener bug');
    });
    events.on('registry.notify', (e) => seen.push(e));
    expect(() => events.emit({ type: 'registry.notify', category: 'providers', urls: 2 })).not.toThrow();
    expect(seen).toEqual([{ type: 'registry.notify', category: 'providers', urls: 2 }]);
    expect(logger.of('warn')).toEqual(['a listener of the "registry.notify" event failed']);
  });

  it('is one channel per application, registered as a service', async () => {
    const app = createTestApp(['@weft/core'], { prefix: 'weft-events' });
    const framework = FrameworkModel.create({ root: app.root, logger: new RecordingLogger() });
    try {
      const one = framework.newApplication('one');
      const two = framework.newApplication('two');
      expect(one.getService(ApplicationEvents)).toBeInstanceOf(ApplicationEvents);
      expect(one.getService(ApplicationEvents)).not.toBe(two.getService(ApplicationEvents));
    } finally {
      await framework.destroy();
      app.cleanup();
    }
  });
});
