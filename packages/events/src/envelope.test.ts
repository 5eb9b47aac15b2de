import { createEnvelope, defineEvent, parseEnvelope, type EventDefinition } from './envelope';

interface PublishRequested {
  postId: string;
  profileId: string;
}

const publishRequested = defineEvent<PublishRequested>({
  type: 'post.publish.requested',
  exchange: 'social.posts',
  payloadSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['postId', 'profileId'],
    properties: { postId: { type: 'string' }, profileId: { type: 'string' } },
  },
});

const defs = new Map<string, EventDefinition>([[publishRequested.type, publishRequested]]);

describe('envelope', () => {
  it('builds a complete envelope with a fresh uuid and the current time', () => {
    const env = createEnvelope(
      publishRequested,
      { postId: 'p1', profileId: 'f1' },
      {
        workspaceId: 'w1',
        correlationId: 'c1',
      },
    );
    expect(env).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'post.publish.requested',
      occurredAt: expect.any(String),
      correlationId: 'c1',
      workspaceId: 'w1',
      payload: { postId: 'p1', profileId: 'f1' },
    });
    expect(Math.abs(Date.parse(env.occurredAt) - Date.now())).toBeLessThan(5000);
  });

  it('refuses to build an envelope whose payload breaks the schema, naming the field', () => {
    const build = () => createEnvelope(publishRequested, { postId: 'p1' } as PublishRequested, { workspaceId: null, correlationId: 'c' });
    expect(build).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED', status: 400 }));
    try {
      build();
    } catch (err) {
      expect((err as { details: unknown }).details).toEqual([{ path: '/payload/profileId', message: expect.any(String) }]);
    }
  });

  it('accepts a null workspace but not an empty one', () => {
    const meta = { correlationId: 'c' };
    expect(() => createEnvelope(publishRequested, { postId: 'p', profileId: 'f' }, { ...meta, workspaceId: null })).not.toThrow();
    expect(() => createEnvelope(publishRequested, { postId: 'p', profileId: 'f' }, { ...meta, workspaceId: '' })).toThrow();
  });

  it('reads a valid message body back into its envelope', () => {
    const env = createEnvelope(publishRequested, { postId: 'p', profileId: 'f' }, { workspaceId: 'w', correlationId: 'c' });
    const parsed = parseEnvelope(Buffer.from(JSON.stringify(env)), defs);
    expect(parsed).toEqual({ ok: true, envelope: env, def: publishRequested });
  });

  it.each([
    ['a body that is not JSON', 'not json{', 'body is not JSON'],
    ['an unknown event type', JSON.stringify({ type: 'post.deleted' }), 'unknown event type "post.deleted"'],
    [
      'an envelope without id',
      JSON.stringify({
        type: 'post.publish.requested',
        occurredAt: new Date().toISOString(),
        correlationId: 'c',
        workspaceId: null,
        payload: { postId: 'p', profileId: 'f' },
      }),
      'envelope does not match its schema',
    ],
    [
      'an envelope with a malformed id',
      JSON.stringify({
        id: 'nope',
        type: 'post.publish.requested',
        occurredAt: new Date().toISOString(),
        correlationId: 'c',
        workspaceId: null,
        payload: { postId: 'p', profileId: 'f' },
      }),
      'envelope does not match its schema',
    ],
  ])('rejects %s', (_name, body, reason) => {
    const parsed = parseEnvelope(Buffer.from(body), defs);
    expect(parsed).toMatchObject({ ok: false, reason });
  });
});
