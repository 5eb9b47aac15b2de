import { ContractChecker } from './contract';

const checker = new ContractChecker();
const label = { id: 'l1', name: 'Launch', color: '#A1B2C3' };
const errorBody = { error: { code: 'NOT_FOUND', message: 'x', details: [], requestId: 'r' } };

describe('the contract checker', () => {
  it('accepts a response the document describes', () => {
    expect(checker.check('POST', '/labels', 201, 'application/json', label)).toBeUndefined();
    expect(checker.check('GET', '/labels/', 200, 'application/json', { items: [label], total: 1, skip: 0, take: 20 })).toBeUndefined();
  });

  it('reports a body that does not match its schema', () => {
    expect(checker.check('POST', '/labels', 201, 'application/json', { ...label, color: 'red' })).toMatch(
      /POST \/labels 201: body does not match the document: \/color must match pattern/,
    );
    expect(checker.check('GET', '/labels/', 200, 'application/json', { items: [] })).toMatch(/must have required property/);
  });

  it('reports an undocumented status or operation', () => {
    expect(checker.check('POST', '/labels', 418, 'application/json', {})).toMatch(/status 418 is not documented/);
    expect(checker.check('GET', '/nothing', 200, 'application/json', {})).toMatch(/no such operation/);
  });

  it('accepts the error shape for unknown paths refused before routing', () => {
    expect(checker.check('GET', '/nothing', 404, 'application/json', errorBody)).toBeUndefined();
    expect(checker.check('GET', '/nothing', 404, 'application/json', { message: 'nope' })).toMatch(/body does not match/);
  });

  it('prefers literal path segments over templates', () => {
    expect(checker.check('POST', '/media/from-url', 400, 'application/json', errorBody)).toBeUndefined();
  });

  it('maps gateway URLs to document paths', () => {
    expect(ContractChecker.apiPath(new URL('http://h/v2/posts/1'))).toBe('/posts/1');
    expect(ContractChecker.apiPath(new URL('http://h/storage/files/1/original'))).toBe('/storage/files/1/original');
    expect(ContractChecker.apiPath(new URL('http://h/healthz'))).toBeUndefined();
  });
});
