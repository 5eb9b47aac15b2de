import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type TextMapGetter,
} from '@opentelemetry/api';

/**
 * Trace context on the broker: a message carries the W3C `traceparent` (and `tracestate`) of the
 * span that published it in its AMQP headers, and the consumer's span continues that trace as its
 * child. The headers survive per-message TTLs and dead-lettering, so a delayed retry, consumed
 * minutes later, still joins the trace of the request that caused it. With tracing off the
 * OpenTelemetry API is a no-op: no header is added and no span is made.
 */
const tracer = trace.getTracer('@social/events');

export interface MessageInfo {
  type: string;
  exchange: string;
  routingKey: string;
  messageId: string;
  correlationId: string;
}

type Headers = Record<string, unknown>;

const headerGetter: TextMapGetter<Headers | undefined> = {
  keys: (carrier) => Object.keys(carrier ?? {}),
  get: (carrier, key) => {
    const v = carrier?.[key];
    if (typeof v === 'string') return v;
    return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
  },
};

const attributesOf = (m: MessageInfo) => ({
  'messaging.system': 'rabbitmq',
  'messaging.destination.name': m.exchange,
  'messaging.rabbitmq.destination.routing_key': m.routingKey,
  'messaging.message.id': m.messageId,
  'messaging.message.conversation_id': m.correlationId,
  'event.type': m.type,
});

/** Runs a publish under a producer span; `send` gets the headers that carry the span's context. */
export async function inPublishSpan<T>(m: MessageInfo, send: (headers: Record<string, string>) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(`publish ${m.type}`, { kind: SpanKind.PRODUCER, attributes: attributesOf(m) }, async (span) => {
    const headers: Record<string, string> = {};
    propagation.inject(context.active(), headers);
    try {
      return await send(headers);
    } catch (err) {
      markFailed(err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The trace context a message's headers carry (the root context when they carry none). */
export function traceContextOf(headers: Headers | undefined) {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** Runs the handling of a message under a consumer span, child of the span that published it. */
export function inConsumeSpan<T>(headers: Headers | undefined, m: MessageInfo & { queue: string }, handle: () => Promise<T>): Promise<T> {
  const parent = traceContextOf(headers);
  return tracer.startActiveSpan(
    `process ${m.type}`,
    { kind: SpanKind.CONSUMER, attributes: { ...attributesOf(m), 'messaging.rabbitmq.queue': m.queue, 'request.id': m.correlationId } },
    parent,
    async (span) => {
      try {
        return await handle();
      } finally {
        span.end();
      }
    },
  );
}

/** Marks the active span failed (a handler error is settled by the broker, not thrown out of it). */
export function markFailed(err: unknown): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** The W3C traceparent of the span running now, to store with deferred work; null while tracing is off. */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ?? null;
}

/**
 * Runs work deferred past its request (a dispatch at the due time, an outbox relay) in a span whose
 * parent is the stored traceparent: a parent rather than a link, so the work, however much later,
 * stays in the trace of the request that asked for it. Without a stored context it starts a trace.
 */
export function inStoredTrace<T>(
  traceparent: string | null | undefined,
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return tracer.startActiveSpan(name, { attributes }, parent, async (span) => {
    try {
      return await fn();
    } catch (err) {
      markFailed(err);
      throw err;
    } finally {
      span.end();
    }
  });
}
