import { formatNumber, h, replace, s, type Ids } from '../dom.js';

/** One line of a chart. */
export interface SeriesDefinition {
  readonly key: string;
  readonly label: string;
}

/** One sample: a time (epoch ms) and a value per series key (`null`: not measured). */
export interface Sample {
  readonly t: number;
  readonly values: Readonly<Record<string, number | null | undefined>>;
}

const WIDTH = 480;
const HEIGHT = 150;
const LEFT = 44;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 22;

/** The smallest "round" number (1, 2, 5 × 10ⁿ) at or above `value`. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (value <= step * magnitude) return step * magnitude;
  return 10 * magnitude;
}

/**
 * A line chart drawn as SVG by our own code: one polyline per series over the samples' time span, a y scale
 * rounded up to 1/2/5 × 10ⁿ, and a legend holding each series' latest value.
 *
 * @remarks The figure is named by its caption (`getByRole('figure', { name })`); each legend value is an
 * `<output>` named by its series label, so a test or a screen reader reads "force 2.5 /s".
 * @example
 * ```ts
 * const chart = new LineChart(ids, 'Requests per second', '/s', [{ key: 'rps', label: 'requests' }]);
 * chart.update(points.map((p) => ({ t: p.t, values: { rps: p.rps } })));
 * ```
 */
export class LineChart {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly legend: HTMLElement;

  constructor(
    ids: Ids,
    private readonly title: string,
    private readonly unit: string,
    private readonly series: readonly SeriesDefinition[],
  ) {
    const captionId = ids.id('chart');
    this.svg = s('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': `${title}: no data yet`, preserveAspectRatio: 'none' });
    this.legend = h('ul', { class: 'legend' });
    this.element = h('figure', { class: 'chart', 'aria-labelledby': captionId }, h('figcaption', { id: captionId }, title), this.svg, this.legend);
    this.update([]);
  }

  /** Draws `samples` (oldest first). */
  update(samples: readonly Sample[]): void {
    const values = samples.flatMap((sample) => this.series.map((line) => sample.values[line.key])).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const max = niceCeiling(Math.max(0, ...values));
    const first = samples[0]?.t ?? 0;
    const last = samples[samples.length - 1]?.t ?? 0;
    const span = Math.max(1, last - first);
    const x = (t: number): number => LEFT + ((t - first) / span) * (WIDTH - LEFT - RIGHT);
    const y = (v: number): number => TOP + (1 - v / max) * (HEIGHT - TOP - BOTTOM);

    const grid = [0, max / 2, max].map((v) =>
      s('g', { class: 'grid' }, s('line', { x1: LEFT, x2: WIDTH - RIGHT, y1: y(v), y2: y(v) }), s('text', { x: LEFT - 4, y: y(v) + 4, 'text-anchor': 'end' }, formatNumber(v))),
    );
    const axis = samples.length > 1 ? [s('text', { class: 'axis', x: LEFT, y: HEIGHT - 6 }, `−${Math.round(span / 1000)} s`), s('text', { class: 'axis', x: WIDTH - RIGHT, y: HEIGHT - 6, 'text-anchor': 'end' }, 'now')] : [];
    const lines = this.series.map((line, index) => {
      const points = samples.filter((sample) => typeof sample.values[line.key] === 'number').map((sample) => `${x(sample.t).toFixed(1)},${y(sample.values[line.key] as number).toFixed(1)}`);
      if (points.length === 1) {
        const [cx, cy] = (points[0] as string).split(',');
        return s('circle', { class: `line s-${index}`, cx, cy, r: 2.5, 'data-series': line.key });
      }
      return s('polyline', { class: `line s-${index}`, points: points.join(' '), 'data-series': line.key });
    });
    replace(this.svg, grid, axis, lines);

    const latest = samples[samples.length - 1];
    const described = this.series.map((line) => `${line.label} ${this.format(latest?.values[line.key])}`);
    this.svg.setAttribute('aria-label', samples.length === 0 ? `${this.title}: no data yet` : `${this.title}: ${described.join(', ')}`);
    replace(
      this.legend,
      this.series.map((line, index) => {
        const value = latest?.values[line.key];
        return h(
          'li',
          {},
          h('span', { class: `swatch s-${index}`, 'aria-hidden': 'true' }),
          h('span', { class: 'label' }, line.label),
          ' ',
          h('output', { 'aria-label': line.label, 'data-series': line.key, 'data-value': typeof value === 'number' ? String(value) : '' }, this.format(value)),
        );
      }),
    );
  }

  private format(value: number | null | undefined): string {
    return typeof value === 'number' ? `${formatNumber(value)} ${this.unit}` : '–';
  }
}
