import { DOMAIN_EVENTS } from '@social/contracts';
import { loadOpenApi } from '@social/openapi';

describe('the webhooks section of the OpenAPI document', () => {
  const doc = loadOpenApi();

  it.each(DOMAIN_EVENTS.map((e) => [e.type, e] as const))('documents the payload of %s as the contract defines it', (type, def) => {
    const data = doc.webhooks[type].post.requestBody.content['application/json'].schema.properties.data;
    const contract = def.payloadSchema as { required: string[]; properties: Record<string, unknown> };
    expect([...data.required].sort()).toEqual([...contract.required].sort());
    expect(Object.keys(data.properties).sort()).toEqual(Object.keys(contract.properties).sort());
  });
});
