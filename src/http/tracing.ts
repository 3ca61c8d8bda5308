import { FastifyOtelInstrumentation } from '@fastify/otel';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * OpenTelemetry tracing, loaded (by a dynamic import in app.ts) only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set: without it no OpenTelemetry module is loaded and no hook
 * is added. Each app has its own tracer provider (tests build many apps in one process); the
 * process-wide parts the API needs, the context manager and the W3C propagator that reads an
 * incoming `traceparent`, are registered once, by the first app that traces.
 */
let globalsRegistered = false;

/** Paths a load balancer or Prometheus polls: a span for each would drown the traces that matter. */
const UNTRACED = new Set(['/health', '/ready', '/metrics']);

export async function registerTracing(
  app: FastifyInstance,
  settings: { endpoint: string; serviceName: string; instanceId: string },
): Promise<void> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.serviceName,
      'service.instance.id': settings.instanceId,
    }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` })),
    ],
  });
  if (!globalsRegistered) {
    provider.register();
    globalsRegistered = true;
  }
  const instrumentation = new FastifyOtelInstrumentation({
    ignorePaths: (route) => UNTRACED.has(route.url),
  });
  instrumentation.setTracerProvider(provider);
  await app.register(instrumentation.plugin());
  // Spans still buffered are sent before the process exits.
  app.addHook('onClose', async () => {
    instrumentation.disable();
    await provider.shutdown();
  });
}

/**
 * The request span's own traceparent (the caller's trace id when it sent one, this request's
 * span as the parent), which webhooks caused by the request carry; null when not traced.
 */
export function requestSpanTraceparent(request: FastifyRequest): string | null {
  const otel = request.opentelemetry();
  if (!otel.instrumented || !otel.span) return null;
  const span = trace.getSpan(otel.context);
  const sc = (span ?? otel.span).spanContext();
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}
