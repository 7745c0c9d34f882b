// Types of parse-prometheus-text-format 1.1.1 (the package ships none): prom2json-compatible output.
declare module 'parse-prometheus-text-format' {
  interface PrometheusSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly quantiles?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  interface PrometheusFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PrometheusSample[];
  }
  function parsePrometheusTextFormat(text: string): PrometheusFamily[];
  export default parsePrometheusTextFormat;
}
