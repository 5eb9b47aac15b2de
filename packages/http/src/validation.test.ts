import { validator } from './validation';

const validate = validator({
  type: 'object',
  additionalProperties: false,
  properties: {
    links: { type: 'array', maxItems: 20, items: { type: 'object', required: ['link'], properties: { link: { type: 'string' } } } },
    n: { type: 'number' },
  },
});
const detailsOf = (data: unknown) => {
  try {
    validate(data);
    return [];
  } catch (e) {
    return (e as { details: { path: string; message: string }[] }).details;
  }
};

describe('validator', () => {
  it('reports an oversized array once instead of once per item', () => {
    expect(detailsOf({ links: Array(520_001).fill(0) })).toEqual([{ path: '/links', message: 'must NOT have more than 20 items' }]);
  });

  it('lists every problem of an ordinary body, at most 20', () => {
    expect(detailsOf({ links: Array(20).fill(0), a: 1, b: 2 })).toHaveLength(20);
    expect(detailsOf({ links: [0, 0], a: 1 }).map((d) => d.path)).toEqual(['/a', '/links/0', '/links/1']);
  });

  it('refuses numbers that overflowed to Infinity', () => {
    expect(detailsOf(JSON.parse('{"n":1e400}'))).toEqual([{ path: '/n', message: 'must be number' }]);
  });
});
