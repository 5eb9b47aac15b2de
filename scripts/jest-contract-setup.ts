// End-to-end tests: every response from the gateway is checked against the OpenAPI document.
// A response that the document does not describe fails the test file (in afterAll), so the
// document and the system cannot drift apart.
import { ContractChecker } from '@social/openapi';

const checker = new ContractChecker();
const violations = new Set<string>();
const realFetch = globalThis.fetch;

globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await realFetch(input, init);
  // A redirect that fetch followed (MEDIA_STORE=s3: the storage host's 307 to the store) ends at
  // another server, whose answer is not ours to check.
  const url = new URL(res.redirected ? res.url : typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
  const path = ContractChecker.apiPath(url);
  if (!path) return res;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const contentType = res.headers.get('content-type');
  let body: unknown;
  if (contentType?.startsWith('application/json')) {
    try {
      body = await res.clone().json();
    } catch {
      violations.add(`${method} ${path} ${res.status}: the body is not valid JSON`);
      return res;
    }
  }
  const problem = checker.check(method, path, res.status, contentType, body);
  if (problem) violations.add(problem);
  return res;
};

afterAll(() => {
  if (violations.size > 0) {
    throw new Error(`Responses not described by the OpenAPI document:\n- ${[...violations].slice(0, 30).join('\n- ')}`);
  }
});
