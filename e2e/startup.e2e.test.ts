import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateSigningKeyPair } from '@social/internal-auth';
import { KNOWN_WEAK_SECRETS } from '@social/config';
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
    [
      'gateway/dist/index.js',
      'GATEWAY_JWT_PRIVATE_KEY',
      `gw-1:${Buffer.from('not a DER private key, only bytes').toString('base64')}`,
      /GATEWAY_JWT_PRIVATE_KEY does not hold a readable PKCS#8 private key/,
    ],
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

/**
 * Every process refuses a secret anyone could know, a short one or none at all, naming the variable,
 * in production as anywhere (no environment switch turns the check off). Each row: a process of
 * system.json and the secrets it needs.
 */
const SECRETS_OF: [string, string, string[]][] = [
  ['gateway', 'gateway/dist/index.js', ['GATEWAY_JWT_PRIVATE_KEY']],
  ['posts', 'services/posts/dist/index.js', ['POSTS_JWT_PRIVATE_KEY', 'INTERNAL_JWT_PUBLIC_KEYS']],
  ['media', 'services/media/dist/index.js', ['MEDIA_JWT_PRIVATE_KEY', 'STORAGE_SIGNING_SECRET', 'INTERNAL_JWT_PUBLIC_KEYS']],
  ['media-worker', 'services/media/dist/worker.js', ['STORAGE_SIGNING_SECRET']],
  ['competitors', 'services/competitors/dist/index.js', ['PROFILE_TOKEN_KEY', 'INTERNAL_JWT_PUBLIC_KEYS']],
  ['insights', 'services/insights/dist/index.js', ['INSIGHTS_JWT_PRIVATE_KEY', 'INTERNAL_JWT_PUBLIC_KEYS']],
  ['insights-collector', 'services/insights/dist/collector.js', ['INSIGHTS_JWT_PRIVATE_KEY']],
  ['publisher', 'services/publisher/dist/index.js', ['PUBLISHER_JWT_PRIVATE_KEY']],
  ['webhooks', 'services/webhooks/dist/index.js', ['WEBHOOKS_SECRET_KEY', 'INTERNAL_JWT_PUBLIC_KEYS']],
];

describe('start-up with weak secrets', () => {
  // A process that got past its configuration would try MongoDB; this one is not there, so a
  // missed check shows as a different message, never as a hang.
  const base = { MONGO_URL: 'mongodb://127.0.0.1:1/', MONGO_CONNECT_TIMEOUT_MS: '500', NODE_ENV: 'production' };

  it.each(SECRETS_OF)(
    '%s refuses every published default, a short value and none, naming the variable',
    async (_name, entry, variables) => {
      for (const variable of variables) {
        const bad =
          variable === 'INTERNAL_JWT_PUBLIC_KEYS' ? ['', 'gateway:k:not-a-key'] : ['', 'x7Qp2Lm9', ...KNOWN_WEAK_SECRETS.slice(0, 3)];
        for (const value of bad) {
          const { code, output } = await start(entry, { ...base, [variable]: value });

          expect(code).toBe(1);
          expect(output).toContain(`Invalid configuration: ${variable}`);
        }
      }
    },
  );

  it('refuses a key pair generated for another issuer', async () => {
    // posts' key given to the gateway: the key id says posts, and services would refuse its tokens;
    // the gateway still starts (keys are opaque to it) but its tokens fail verification (covered by
    // the forged-token tests); what must hold here is that a malformed key never starts anything.
    const { code, output } = await start('gateway/dist/index.js', {
      ...base,
      GATEWAY_JWT_PRIVATE_KEY: generateSigningKeyPair('posts').publicEntry,
    });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration: GATEWAY_JWT_PRIVATE_KEY');
  });
});
