// The secrets of a local install (`pnpm start`, `pnpm admin`): generated once, kept in
// .local/secrets.env (git-ignored, owner-only), and given to each process as environment.
// Nothing here has a default a reader of this repository could know.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export const SECRETS_FILE = process.env.SOCIAL_SECRETS_FILE ?? path.join(root, '.local', 'secrets.env');

/** Who signs internal tokens: the gateway, and the services that call others over gRPC. */
export const ISSUERS = ['gateway', 'posts', 'media', 'insights', 'publisher'];

/** The issuer whose private key a process of system.json holds (media-worker signs as media). */
export function issuerOfProcess(name) {
  const base = name.replace(/-(worker|collector)$/, '');
  return ISSUERS.includes(base) ? base : undefined;
}

const privateVar = (issuer) => `${issuer.toUpperCase()}_JWT_PRIVATE_KEY`;

function parse(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]] = m[2];
  }
  return out;
}

/**
 * Reads the local secrets, creating the file (0600, in a 0700 folder) on the first run and adding
 * any secret a newer version needs. Returns every variable the file holds.
 */
export function ensureLocalSecrets() {
  const { generateSigningKeyPair, publicEntryOf } = require(path.join(root, 'packages/internal-auth/dist'));
  const existed = existsSync(SECRETS_FILE);
  const values = existed ? parse(readFileSync(SECRETS_FILE, 'utf8')) : {};
  let changed = !existed;
  for (const issuer of ISSUERS) {
    if (!values[privateVar(issuer)]) {
      values[privateVar(issuer)] = generateSigningKeyPair(issuer).privateKey;
      changed = true;
    }
  }
  for (const name of ['STORAGE_SIGNING_SECRET', 'PROFILE_TOKEN_KEY', 'WEBHOOKS_SECRET_KEY']) {
    if (!values[name]) {
      values[name] = randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  // The public keys always follow the private ones (kept by hand only during a rollover: see docs).
  const derived = ISSUERS.map((i) => publicEntryOf(i, values[privateVar(i)])).join(',');
  if (!values.INTERNAL_JWT_PUBLIC_KEYS) {
    values.INTERNAL_JWT_PUBLIC_KEYS = derived;
    changed = true;
  }
  if (changed) {
    mkdirSync(path.dirname(SECRETS_FILE), { recursive: true, mode: 0o700 });
    const body = [
      '# Secrets of this local install, made by scripts/local-secrets.mjs (pnpm start). Keep private;',
      '# never commit. Delete the file to make new ones (stored network tokens then need reconnecting).',
      ...Object.entries(values).map(([k, v]) => `${k}=${v}`),
      '',
    ].join('\n');
    const tmp = `${SECRETS_FILE}.${process.pid}.tmp`;
    writeFileSync(tmp, body, { mode: 0o600 });
    renameSync(tmp, SECRETS_FILE);
    console.error(
      `${existed ? 'updated' : 'generated'} local secrets in ${path.relative(process.cwd(), SECRETS_FILE) || SECRETS_FILE} (mode 0600)`,
    );
  }
  const mode = statSync(SECRETS_FILE).mode & 0o777;
  if (mode & 0o077) {
    chmodSync(SECRETS_FILE, 0o600);
    console.error(`${SECRETS_FILE} was readable by others (mode ${mode.toString(8)}); set to 0600`);
  }
  return values;
}

/**
 * The environment of one process: everything from the file except other issuers' private keys;
 * a variable already set in the environment wins over the file.
 */
export function secretsFor(processName, values, env = process.env) {
  const own = issuerOfProcess(processName);
  const out = {};
  for (const [k, v] of Object.entries(values)) {
    if (k.endsWith('_JWT_PRIVATE_KEY') && k !== (own && privateVar(own))) continue;
    out[k] = env[k] ?? v;
  }
  return out;
}
