import { h, replace, s, type Ids } from '../dom.js';
import type { BreakerState } from '../types.js';

const WIDTH = 480;
const HEIGHT = 40;

/**
 * The circuit breaker's state over time: one band per sample, coloured by state, and the current state in words.
 *
 * @example
 * ```ts
 * const timeline = new BreakerTimeline(ids);
 * timeline.update(points.map((p) => ({ t: p.t, state: p.breaker })));
 * ```
 */
export class BreakerTimeline {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly now: HTMLOutputElement;

  constructor(ids: Ids) {
    const captionId = ids.id('chart');
    this.svg = s('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': 'Breaker state: no data yet', preserveAspectRatio: 'none' });
    this.now = h('output', { 'aria-label': 'Breaker state now' }, '–');
    this.element = h(
      'figure',
      { class: 'chart breaker', 'aria-labelledby': captionId },
      h('figcaption', { id: captionId }, 'Breaker state'),
      this.svg,
      h('p', { class: 'legend' }, 'Now: ', this.now, ' ', h('span', { class: 'muted' }, '(closed · half-open · open · forced)')),
    );
  }

  /** Draws the states (oldest first); `null` is a service without a breaker. */
  update(samples: readonly { t: number; state: BreakerState | null }[]): void {
    const width = samples.length === 0 ? 0 : WIDTH / samples.length;
    replace(
      this.svg,
      samples.map((sample, index) => s('rect', { class: `state state-${sample.state ?? 'none'}`, x: (index * width).toFixed(2), y: 4, width: (width + 0.5).toFixed(2), height: HEIGHT - 8 }, s('title', {}, sample.state ?? 'no breaker'))),
    );
    const current = samples[samples.length - 1]?.state;
    const text = current === undefined ? '–' : current === null ? 'no breaker' : current;
    this.now.textContent = text;
    this.now.className = `state-text state-${current ?? 'none'}`;
    this.svg.setAttribute('aria-label', `Breaker state: ${text}`);
  }
}
