import { randomUUID } from 'node:crypto';
import { createTestVhost, eventually, testEnv, TestSystem, type TestVhost } from '@social/testkit';
import { apiClient, type ApiCreds } from './support/api';
import { traced, tracedWorkspace, uploadTracedImage } from './support/traced';
import { OtlpReceiver, SpanKinds, type ReceivedSpan } from './support/otlp-receiver';

// OpenTelemetry across the whole system: every process exports to a real OTLP/HTTP receiver
// (JSON encoding) in this test, configured only by the standard OTEL_* variables. A publish
// dispatched seconds after its `schedule` request must land in that request's trace, down to the
// network call and back to the result applied in posts.
let vhost: TestVhost;
let system: TestSystem;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await OtlpReceiver.start();
  vhost = await createTestVhost(testEnv()['AMQP_URL']!);
  system = await TestSystem.start({
    AMQP_URL: vhost.amqpUrl,
    PLANS: JSON.stringify({ free: { competitors: 5, requestsPerWindow: 100000000 } }),
    POSTS_DISPATCH_TICK_MS: '1000',
    SHUTDOWN_GRACE_MS: '3000',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200',
  });
}, 420000);

afterAll(async () => {
  await system?.destroy();
  await vhost?.drop();
  await receiver?.close();
}, 60000);

const api = (c: ApiCreds) => apiClient(system, c);
const workspace = () => tracedWorkspace(system, 'E2E otel');
const uploadImage = (c: ApiCreds, requestId: string) => uploadTracedImage(system, c, requestId);

/** The gateway's server span of the request with this id: the root of its trace. */
const gatewaySpanOf = (requestId: string) =>
  eventually(
    async () =>
      receiver.spans.find((s) => s.service === 'gateway' && s.kind === SpanKinds.SERVER && s.attributes['request.id'] === requestId),
    30000,
    100,
  );

/** The names of a span's ancestors up to the root, as "service: name" (the span itself first). */
function chainOf(span: ReceivedSpan, trace: ReceivedSpan[]): string[] {
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  const chain: string[] = [];
  for (let s: ReceivedSpan | undefined = span; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) {
    chain.push(`${s.service}: ${s.name}`);
    if (chain.length > 100) break;
  }
  return chain;
}

/** An attribute under its stable semantic-convention name or the older one. */
const attr = (s: ReceivedSpan, stable: string, old: string) => s.attributes[stable] ?? s.attributes[old];

/** Waits until the trace holds a span matching `want`, then returns it. */
const spanIn = (traceId: string, what: string, want: (s: ReceivedSpan) => boolean) =>
  eventually(async () => receiver.inTrace(traceId).find(want), 60000, 200).catch(() => {
    const seen = receiver.inTrace(traceId).map((s) => `${s.service}: ${s.name}`);
    throw new Error(`no span for ${what} in trace ${traceId}; it holds:\n${seen.join('\n')}`);
  });

describe('OpenTelemetry traces through the whole system', () => {
  it('follows a scheduled post in one trace from PATCH …/schedule through the dispatch and the publisher to the network call and the result applied in posts', async () => {
    const c = await workspace();
    const mediaId = await uploadImage(c, `otel-upload-${randomUUID()}`);
    const created = await api(c).POST('/posts', {
      body: {
        type: 'MEDIA',
        profileIds: [c.profileId],
        captions: [{ plainText: 'Traced with OpenTelemetry' }],
        medias: [{ mediaFiles: [{ mediaLibId: mediaId }] }],
        publishAt: new Date(Date.now() + 6000).toISOString(),
      },
    });
    expect(created.response.status).toBe(201);
    const postId = created.data!.id;
    const requestId = `otel-schedule-${randomUUID()}`;

    const scheduled = await api(c).PATCH('/posts/{postId}/stage/{op}', {
      params: { path: { postId, op: 'schedule' } },
      ...traced(requestId),
    });
    expect(scheduled.response.status).toBe(200);
    const post = await eventually(
      async () => {
        const body = (await api(c).GET('/posts/{postId}', { params: { path: { postId } } })).data;
        return body?.stage === 'PUBLISHED' || body?.stage === 'PUBLISHED_FAILED' ? body : null;
      },
      60000,
      300,
    );
    expect(post.stage).toBe('PUBLISHED');

    const root = await gatewaySpanOf(requestId);
    expect(root.parentSpanId).toBe('');
    expect(root.name).toMatch(/^PATCH/);
    const t = root.traceId;
    const postsServer = await spanIn(t, 'posts serving the request', (s) => s.service === 'posts' && s.kind === SpanKinds.SERVER);
    const validation = await spanIn(
      t,
      'competitors answering GetProfiles over gRPC',
      (s) => s.service === 'competitors' && s.kind === SpanKinds.SERVER && /GetProfiles/.test(s.name),
    );
    const dispatch = await spanIn(
      t,
      'the dispatch',
      (s) => s.service === 'posts' && s.name === 'posts dispatch' && s.attributes['post.id'] === postId,
    );
    const job = await spanIn(
      t,
      'the publish job published',
      (s) => s.service === 'posts' && s.kind === SpanKinds.PRODUCER && s.name === 'publish post.publish.requested',
    );
    const consumed = await spanIn(
      t,
      'the publisher consuming the job',
      (s) => s.service === 'publisher' && s.kind === SpanKinds.CONSUMER && s.name === 'process post.publish.requested',
    );
    const credentials = await spanIn(
      t,
      'competitors answering GetPublishCredentials',
      (s) => s.service === 'competitors' && s.kind === SpanKinds.SERVER && /GetPublishCredentials/.test(s.name),
    );
    // posts asks media too (validation); this is the publisher's question.
    const fromPublisher = (s: ReceivedSpan) => chainOf(s, receiver.inTrace(t)).includes('publisher: process post.publish.requested');
    const media = await spanIn(
      t,
      'media answering BatchGetMedia for the publisher',
      (s) => s.service === 'media' && s.kind === SpanKinds.SERVER && /BatchGetMedia/.test(s.name) && fromPublisher(s),
    );
    const adapter = await spanIn(t, 'the network adapter call', (s) => s.service === 'publisher' && s.name === 'generalNet publish');
    const network = await spanIn(
      t,
      'the sandbox serving the publish',
      (s) => s.service === 'network-sandbox' && s.kind === SpanKinds.SERVER && attr(s, 'http.request.method', 'http.method') === 'POST',
    );
    const result = await spanIn(
      t,
      'the publisher reporting the outcome',
      (s) => s.service === 'publisher' && s.kind === SpanKinds.PRODUCER && s.name === 'publish post.publish.completed',
    );
    const applied = await spanIn(
      t,
      'posts applying the result',
      (s) => s.service === 'posts' && s.kind === SpanKinds.CONSUMER && s.name === 'process post.publish.completed',
    );
    const trace = receiver.inTrace(t);

    // One tree: each hop hangs from the one that caused it, up to the gateway's span.
    expect(chainOf(postsServer, trace).at(-1)).toBe(`gateway: ${root.name}`);
    expect(chainOf(validation, trace)).toContain(`posts: ${postsServer.name}`);
    // The dispatch's parent is the schedule request's span in posts (its handler), stored with the post.
    expect(chainOf(dispatch, trace)[1]).toMatch(/^posts: request handler/);
    expect(chainOf(dispatch, trace).slice(2)).toEqual(chainOf(postsServer, trace));
    expect(chainOf(job, trace)[1]).toBe('posts: posts dispatch');
    expect(chainOf(consumed, trace)[1]).toBe('posts: publish post.publish.requested');
    for (const served of [credentials, adapter]) expect(chainOf(served, trace)).toContain('publisher: process post.publish.requested');
    expect(chainOf(media, trace).at(-1)).toBe(`gateway: ${root.name}`);
    expect(chainOf(network, trace)).toEqual(
      expect.arrayContaining(['publisher: generalNet publish', 'publisher: process post.publish.requested', 'posts: posts dispatch']),
    );
    expect(chainOf(result, trace)).toContain('publisher: process post.publish.requested');
    expect(chainOf(applied, trace).slice(0, 2)).toEqual([
      'posts: process post.publish.completed',
      'publisher: publish post.publish.completed',
    ]);
    expect(chainOf(applied, trace).at(-1)).toBe(`gateway: ${root.name}`);
    // The dispatch came from the dispatcher's tick after the request had been answered, not from it.
    expect(dispatch.startNs).toBeGreaterThan(root.endNs);
    // The request id stays, beside the trace: on the spans of the request, the job and the network call.
    expect([postsServer, dispatch, consumed, network].map((s) => s.attributes['request.id'])).toEqual([
      requestId,
      requestId,
      requestId,
      requestId,
    ]);
    expect(attr(network, 'http.response.status_code', 'http.status_code')).toBe(201);
    expect(receiver.refused).toEqual([]);
  }, 180000);

  it('follows a media confirmation into the media worker that processed it', async () => {
    const c = await workspace();
    const requestId = `otel-media-${randomUUID()}`;

    await uploadImage(c, requestId);

    const root = await gatewaySpanOf(requestId);
    const processed = await spanIn(
      root.traceId,
      'the media worker processing the file',
      (s) => s.service === 'media-worker' && s.kind === SpanKinds.CONSUMER,
    );
    expect(processed.name).toBe('process media.processing.requested');
    expect(chainOf(processed, receiver.inTrace(root.traceId)).at(-1)).toBe(`gateway: ${root.name}`);
  }, 120000);

  it('follows a competitor added into the insights collection and its calls to the network', async () => {
    const c = await workspace();
    const found = await api(c).GET('/search/profiles', { params: { query: { net: 'generalNet', query: 'coffee' } } });
    expect(found.response.status).toBe(200);
    const requestId = `otel-competitor-${randomUUID()}`;

    const added = await api(c).POST('/competitor', { body: { profileId: found.data!.items[0]!.id }, ...traced(requestId) });
    expect(added.response.status).toBe(201);

    const root = await gatewaySpanOf(requestId);
    const relayed = await spanIn(
      root.traceId,
      'the outbox relay publishing the job',
      (s) => s.service === 'competitors' && s.name === 'publish insights.collection.requested',
    );
    const collected = await spanIn(
      root.traceId,
      'the insights collector',
      (s) => s.service === 'insights-collector' && s.kind === SpanKinds.CONSUMER,
    );
    const metrics = await spanIn(
      root.traceId,
      'the sandbox serving a metrics call',
      (s) => s.service === 'network-sandbox' && s.kind === SpanKinds.SERVER && /metrics/.test(String(attr(s, 'url.path', 'http.target'))),
    );
    const trace = receiver.inTrace(root.traceId);
    expect(chainOf(relayed, trace)[1]).toBe('competitors: competitors outbox relay');
    expect(chainOf(collected, trace)[1]).toBe('competitors: publish insights.collection.requested');
    expect(chainOf(collected, trace).at(-1)).toBe(`gateway: ${root.name}`);
    expect(chainOf(metrics, trace)).toContain(`insights-collector: ${collected.name}`);
  }, 120000);
});
