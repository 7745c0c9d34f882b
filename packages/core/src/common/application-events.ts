import { safeLog, type Logger } from './logger.js';

/**
 * One thing that happened inside an application, for observers (metrics, logs) that must not import its source.
 *
 * @remarks `type` is a dotted name owned by the emitting package (`mock.force`, `mock.fail`, `limit.refused`,
 * `circuitbreaker.state`, `circuitbreaker.removed`, `registry.notify`, `connection.opened`, `connection.closed`); the other fields depend
 * on it and are plain data. Event types and their fields are listed in `docs/guide/observability.md`.
 *
 * @example
 * ```ts
 * const event: WeftEvent = { type: 'mock.fail', service: 'org.acme.Greeter', method: 'sayHello' };
 * ```
 */
export interface WeftEvent {
  /** The dotted event type. */
  readonly type: string;
  /** The service (interface name) it concerns, when one. */
  readonly service?: string;
  /** The method it concerns, when one. */
  readonly method?: string;
  /** More fields, by event type. */
  readonly [field: string]: unknown;
}

/** A listener of {@link ApplicationEvents}. */
export type WeftEventListener = (event: WeftEvent) => void;

/**
 * The event channel of one application: packages emit what happened, observers listen, neither imports the other.
 *
 * @remarks
 * Registered in every application scope under its own class (`app.model.getService(ApplicationEvents)`, or
 * `@Inject(ApplicationEvents)` in an extension). Delivery is synchronous, in subscription order; a listener that
 * throws is reported to the application logger and never reaches the emitter. Emitters on a hot path check
 * {@link ApplicationEvents.listening} first, so an application without observers builds no event objects.
 *
 * @example
 * ```ts
 * const events = app.model.getService(ApplicationEvents);
 * const stop = events.on('mock.fail', (e) => console.log(`degraded ${e.service}.${e.method}`));
 * if (events.listening('mock.fail')) events.emit({ type: 'mock.fail', service: 'org.acme.Greeter', method: 'sayHello' });
 * stop();
 * ```
 */
export class ApplicationEvents {
  private readonly listeners = new Map<string, readonly WeftEventListener[]>();

  constructor(private readonly logger: Logger) {}

  /** Subscribes to one event type (`*`: every type); returns the function that unsubscribes. */
  on(type: string, listener: WeftEventListener): () => void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
    return () => {
      const left = (this.listeners.get(type) ?? []).filter((l) => l !== listener);
      if (left.length === 0) this.listeners.delete(type);
      else this.listeners.set(type, left);
    };
  }

  /** Whether anyone listens to `type` (or to every type). */
  listening(type: string): boolean {
    return this.listeners.size > 0 && (this.listeners.has(type) || this.listeners.has('*'));
  }

  /** Delivers `event` to the listeners of its type, then to those of `*`. */
  emit(event: WeftEvent): void {
    if (this.listeners.size === 0) return;
    this.deliver(this.listeners.get(event.type), event);
    this.deliver(this.listeners.get('*'), event);
  }

  private deliver(listeners: readonly WeftEventListener[] | undefined, event: WeftEvent): void {
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        safeLog(this.logger, 'warn', `a listener of the "${event.type}" event failed`, error);
      }
    }
  }
}
