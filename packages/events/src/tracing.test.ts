import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { currentTraceparent, inConsumeSpan, inPublishSpan, inStoredTrace } from './tracing';

const message = (type: string) => ({ type, exchange: 'publishing', routingKey: type, messageId: `id-${type}`, correlationId: 'req-1' });
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('trace context in message headers', () => {
  describe('with tracing off (no SDK registered)', () => {
    it('adds no header and makes no span', async () => {
      let sent: Record<string, string> | undefined;
      await inPublishSpan(message('post.publish.requested'), async (headers) => {
        sent = headers;
      });
      expect(sent).toEqual({});
      expect(currentTraceparent()).toBeNull();
    });
  });

  describe('with tracing on', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = () => trace.getTracer('test');
    const named = (name: string): ReadableSpan => {
      const s = exporter.getFinishedSpans().find((x) => x.name === name);
      if (!s)
        throw new Error(
          `no span ${name}; have ${exporter
            .getFinishedSpans()
            .map((x) => x.name)
            .join(', ')}`,
        );
      return s;
    };
    const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

    beforeAll(() => {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      trace.setGlobalTracerProvider(provider);
    });
    afterAll(async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    });
    beforeEach(() => exporter.reset());

    it('sends the traceparent of the publish span, a child of the span that published', async () => {
      let sent: Record<string, string> = {};
      await tracer().startActiveSpan('schedule request', async (request) => {
        await inPublishSpan(message('post.publish.requested'), async (headers) => {
          sent = headers;
        });
        request.end();
      });

      const publish = named('publish post.publish.requested');
      expect(sent['traceparent']).toBe(`00-${publish.spanContext().traceId}-${publish.spanContext().spanId}-01`);
      expect(parentOf(publish)).toBe(named('schedule request').spanContext().spanId);
      expect(publish.attributes['messaging.message.id']).toBe('id-post.publish.requested');
    });

    it('continues that trace in the consumer, whether the header arrives as a string or as bytes', async () => {
      for (const asBytes of [false, true]) {
        exporter.reset();
        let sent: Record<string, string> = {};
        await inPublishSpan(message('post.publish.requested'), async (headers) => {
          sent = headers;
        });
        const received = { 'x-delivery-count': 0, traceparent: asBytes ? Buffer.from(sent['traceparent']!) : sent['traceparent'] };

        await inConsumeSpan(received, { ...message('post.publish.requested'), queue: 'publish.jobs' }, async () => {
          tracer().startSpan('network call').end();
        });

        const publish = named('publish post.publish.requested');
        const consume = named('process post.publish.requested');
        expect(consume.spanContext().traceId).toBe(publish.spanContext().traceId);
        expect(parentOf(consume)).toBe(publish.spanContext().spanId);
        expect(parentOf(named('network call'))).toBe(consume.spanContext().spanId);
        expect(consume.attributes['request.id']).toBe('req-1');
      }
    });

    it('keeps the trace through a message the consumer publishes again (a delayed retry, a result)', async () => {
      let first: Record<string, string> = {};
      await inPublishSpan(message('post.publish.requested'), async (h) => {
        first = h;
      });
      let retry: Record<string, string> = {};
      await inConsumeSpan(first, { ...message('post.publish.requested'), queue: 'publish.jobs' }, () =>
        inPublishSpan(message('post.publish.completed'), async (h) => {
          retry = h;
        }),
      );

      const [, traceId, spanId] = TRACEPARENT.exec(retry['traceparent']!)!;
      expect(traceId).toBe(TRACEPARENT.exec(first['traceparent']!)![1]);
      expect(spanId).toBe(named('publish post.publish.completed').spanContext().spanId);
      expect(parentOf(named('publish post.publish.completed'))).toBe(named('process post.publish.requested').spanContext().spanId);
    });

    it('starts a new trace for a message without trace headers', async () => {
      await tracer().startActiveSpan('unrelated', async (unrelated) => {
        await inConsumeSpan({}, { ...message('media.processing.requested'), queue: 'media.jobs' }, async () => undefined);
        unrelated.end();
      });

      const consume = named('process media.processing.requested');
      expect(parentOf(consume)).toBeUndefined();
      expect(consume.spanContext().traceId).not.toBe(named('unrelated').spanContext().traceId);
    });

    it('runs deferred work under the traceparent stored by the request, long after that request ended', async () => {
      let stored: string | null = null;
      await tracer().startActiveSpan('schedule request', async (request) => {
        stored = currentTraceparent();
        request.end();
      });

      await inStoredTrace(stored, 'posts dispatch', { 'post.id': 'p1' }, async () => {
        await inPublishSpan(message('post.publish.requested'), async () => undefined);
      });

      const request = named('schedule request');
      expect(stored).toBe(`00-${request.spanContext().traceId}-${request.spanContext().spanId}-01`);
      expect(parentOf(named('posts dispatch'))).toBe(request.spanContext().spanId);
      expect(parentOf(named('publish post.publish.requested'))).toBe(named('posts dispatch').spanContext().spanId);
    });
  });
});
