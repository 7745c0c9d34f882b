// A grpc-js client instrumented with OpenTelemetry (@opentelemetry/instrumentation-grpc on sdk-trace-node), in its
// own process so the instrumentation patches @grpc/grpc-js before it is loaded:
//   node grpc-js-client.cjs <port> <proto path>
// Calls weft.tracing.v1.Traced/Where inside a span "client-root" and prints one JSON line: the reply (or error)
// and the client's finished spans.
const { trace } = require('@opentelemetry/api');
const { registerInstrumentations } = require('@opentelemetry/instrumentation');
const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc');
const { InMemorySpanExporter, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register(); // AsyncLocalStorage context manager, W3C trace-context and baggage propagators
registerInstrumentations({ instrumentations: [new GrpcInstrumentation()] });

const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const [port, protoPath] = process.argv.slice(2);
const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(protoPath, { keepCase: false, defaults: true }));
const client = new loaded.weft.tracing.v1.Traced(`127.0.0.1:${port}`, grpc.credentials.createInsecure());

trace.getTracer('client-app').startActiveSpan('client-root', (root) => {
  client.Where({ text: 'from grpc-js' }, (error, reply) => {
    root.end();
    const spans = exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      kind: s.kind,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId,
    }));
    process.stdout.write(`${JSON.stringify({ error: error ? error.message : null, reply, spans })}\n`);
    client.close();
  });
});
