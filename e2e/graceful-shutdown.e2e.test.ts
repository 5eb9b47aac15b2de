import { TestSystem } from '@social/testkit';

// SIGTERM a service while requests stream through the gateway: every answer is a success or the
// documented 503 (with Retry-After) while it is down; nothing hangs, nothing 500s, nothing is reset.
let system: TestSystem;

beforeAll(async () => {
  const PLANS = JSON.stringify({ free: { competitors: 5 }, load: { competitors: 5, requestsPerWindow: 1000000 } });
  system = await TestSystem.start({ PLANS }, ['network-sandbox', 'posts', 'media', 'competitors', 'gateway']);
});

afterAll(async () => {
  await system?.destroy();
});

it('stops the posts service during a stream of requests with no 5xx beyond the 503 retry window', async () => {
  const c = await system.admin(['workspace', 'create', '--name', 'shutdown', '--plan', 'load', '--json']);
  const headers = { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey };
  const statuses = new Map<number, number>();
  const problems: string[] = [];
  let stop = false;

  const client = async () => {
    while (!stop) {
      try {
        const res = await fetch(`${system.gatewayUrl}/v2/labels/`, { headers });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503 && res.headers.get('retry-after') === null) problems.push('503 without Retry-After');
        if (res.status !== 200 && res.status !== 503) problems.push(`unexpected ${res.status}: ${await res.text()}`);
        else await res.arrayBuffer();
        // A light, steady stream; the point is the transitions, not the load.
        await new Promise((r) => setTimeout(r, 10));
      } catch (err) {
        problems.push(`request failed: ${(err as Error).message}`);
      }
    }
  };

  const clients = Array.from({ length: 4 }, client);
  await new Promise((r) => setTimeout(r, 1500));
  const exitCode = await system.stopProcess('posts', 'SIGTERM');
  await new Promise((r) => setTimeout(r, 1000));
  await system.startProcess('posts');
  await new Promise((r) => setTimeout(r, 1500));
  stop = true;
  await Promise.all(clients);

  expect(exitCode).toBe(0);
  expect(problems).toEqual([]);
  expect(statuses.get(200)).toBeGreaterThan(0);
  expect(statuses.get(503)).toBeGreaterThan(0);
  expect([...statuses.keys()].sort()).toEqual([200, 503]);
});
