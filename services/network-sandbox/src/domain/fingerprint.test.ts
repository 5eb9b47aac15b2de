import { canonicalJson, fingerprintOf } from './fingerprint';

describe('fingerprint', () => {
  it('ignores key order and undefined fields but not values', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: 1 }], c: undefined })).toBe('{"a":[{"x":1,"y":2}],"b":1}');
    expect(fingerprintOf({ a: 1, b: 'x' })).toBe(fingerprintOf({ b: 'x', a: 1 }));
    expect(fingerprintOf({ a: 1 })).not.toBe(fingerprintOf({ a: 2 }));
  });
});
