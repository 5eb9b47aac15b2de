import { loadOpenApi } from './index';

describe('the OpenAPI document', () => {
  const doc = loadOpenApi();

  it('is OpenAPI 3.1 with the credential schemes', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['apiId', 'apiKey']);
  });

  it('resolves every $ref', () => {
    const refs: string[] = [];
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      expect([ref, target !== undefined]).toEqual([ref, true]);
    }
  });

  it('gives every operation an id and documents 401 on every authenticated operation', () => {
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        expect([path, method, typeof op.operationId]).toEqual([path, method, 'string']);
        if (op.security?.length !== 0) expect([path, method, Boolean(op.responses['401'])]).toEqual([path, method, true]);
      }
    }
  });

  it('documents every webhook event with its signed headers and a payload schema', () => {
    const events = ['post.published', 'post.failed', 'post.stage_changed', 'media.ready', 'media.failed', 'competitor.collected'];
    expect(Object.keys(doc.webhooks).sort()).toEqual([...events].sort());
    expect(doc.components.schemas.WebhookEventType.enum).toEqual(events);
    for (const [name, item] of Object.entries<any>(doc.webhooks)) {
      const op = item.post;
      expect([name, op.parameters.map((p: any) => p.name)]).toEqual([name, ['webhook-id', 'webhook-timestamp', 'webhook-signature']]);
      const schema = op.requestBody.content['application/json'].schema;
      expect([name, schema.properties.type.const, Array.isArray(schema.properties.data.required)]).toEqual([name, name, true]);
    }
  });

  it('documents the Idempotency-Key header and its errors on every POST and stage change', () => {
    const ops: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (method !== 'post' && !(method === 'patch' && path.includes('/stage/'))) continue;
        ops.push(op.operationId);
        expect([op.operationId, op.parameters]).toEqual([
          op.operationId,
          expect.arrayContaining([{ $ref: '#/components/parameters/IdempotencyKey' }]),
        ]);
        expect([op.operationId, Boolean(op.responses['409']), Boolean(op.responses['422'])]).toEqual([op.operationId, true, true]);
      }
    }
    expect(ops).toEqual(
      expect.arrayContaining([
        'createLabel',
        'createPost',
        'changePostStage',
        'createMediaUpload',
        'importMediaFromUrl',
        'generateImage',
        'addCompetitor',
      ]),
    );
  });
});
