import { FastifyOtelInstrumentation } from '@fastify/otel';
import { type Span, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactUrl } from './redactUrl.js';

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

/**
 * `exporter` replaces the OTLP exporter (tests read the spans from memory); spans then go out
 * as they end.
 */
export async function registerTracing(
  app: FastifyInstance,
  settings: { endpoint: string; serviceName: string; instanceId: string },
  exporter?: SpanExporter,
): Promise<void> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: settings.serviceName,
      'service.instance.id': settings.instanceId,
    }),
    spanProcessors: [
      exporter
        ? new SimpleSpanProcessor(exporter)
        : new BatchSpanProcessor(new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` })),
    ],
  });
  if (!globalsRegistered) {
    provider.register();
    globalsRegistered = true;
  }
  const instrumentation = new FastifyOtelInstrumentation({
    ignorePaths: (route) => UNTRACED.has(route.url),
    // The request span's url.path as the access log writes the URL: no upload signature, no
    // file path (both are credentials, and traces are kept and shown to more people than logs).
    requestHook: (span, request) => span.setAttribute(ATTR_URL_PATH, redactUrl(request.url)),
    lifecycleHook: (span, info) => nameHookSpan(span, info.hookName, info.handler),
  });
  instrumentation.setTracerProvider(provider);
  await app.register(instrumentation.plugin());
  // Spans still buffered are sent before the process exits.
  app.addHook('onClose', async () => {
    instrumentation.disable();
    await provider.shutdown();
  });
}

/** A hook or handler span's name and hook.name stay at most this long. */
const MAX_NAME = 60;

/**
 * @fastify/otel names a hook span after its function, or, for an anonymous one, after its plugin,
 * whose name Fastify takes from the plugin's whole source when the plugin has no name: thousands
 * of characters in every span of every request (about 14 KB a request). Such a name becomes
 * "anonymous"; the hook's own name and the route (http.route) still tell the spans apart.
 */
function nameHookSpan(span: Span, hookName: string, handler: string | undefined): void {
  // A nested plugin's name is its chain of names ("a -> b"): the innermost one is enough.
  const last = handler?.split(' -> ').pop();
  const short = last && last.length <= MAX_NAME && !/[\s(){};=]/.test(last) ? last : 'anonymous';
  const name = `${hookName} - ${short}`.slice(0, MAX_NAME * 2);
  span.updateName(name);
  span.setAttribute('hook.name', name);
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
