import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { testEnv } from '@social/testkit';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

async function start(entry: string, env: Record<string, string>) {
  try {
    await run(process.execPath, [path.join(ROOT, entry)], { env: { ...process.env, ...testEnv(env) }, timeout: 20000 });
    return { code: 0, output: '' };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: e.stdout + e.stderr };
  }
}

describe('start-up configuration', () => {
  it.each([
    ['gateway/dist/index.js', 'GATEWAY_PORT', 'abc', /GATEWAY_PORT must be integer/],
    ['services/posts/dist/index.js', 'POSTS_PORT', '70000', /POSTS_PORT must be <= 65535/],
    ['gateway/dist/index.js', 'INTERNAL_JWT_SECRET', 'short', /INTERNAL_JWT_SECRET must NOT have fewer than 16 characters/],
    ['gateway/dist/index.js', 'PLANS', '{"free":{}}', /PLANS is not a valid plan table/],
  ])('%s refuses to start with a bad %s, naming it', async (entry, variable, value, message) => {
    const { code, output } = await start(entry, { [variable]: value });
    expect(code).toBe(1);
    expect(output).toMatch(message);
  });

  it('says what to do when MongoDB cannot be reached', async () => {
    const { code, output } = await start('services/posts/dist/index.js', {
      MONGO_URL: 'mongodb://127.0.0.1:1/',
      POSTS_PORT: '0',
      MONGO_CONNECT_TIMEOUT_MS: '1500',
    });
    expect(code).toBe(1);
    expect(output).toMatch(/Cannot reach MongoDB at mongodb:\/\/127\.0\.0\.1:1\/.*Start it with `pnpm infra` or set MONGO_URL/);
  });
});
