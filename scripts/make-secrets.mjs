#!/usr/bin/env node
// Prints a fresh set of secrets as KEY=value lines, for docker compose (`> .env`) or a Kubernetes
// Secret (`kubectl create secret generic social-api-secrets --from-env-file=...`). Run after
// `pnpm build`. Never commit the output.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { ISSUERS } from './local-secrets.mjs';

const require = createRequire(import.meta.url);
const { generateSigningKeyPair } = require('../packages/internal-auth/dist');

const pairs = ISSUERS.map((issuer) => [issuer, generateSigningKeyPair(issuer)]);
for (const [issuer, pair] of pairs) console.log(`${issuer.toUpperCase()}_JWT_PRIVATE_KEY=${pair.privateKey}`);
console.log(`INTERNAL_JWT_PUBLIC_KEYS=${pairs.map(([, p]) => p.publicEntry).join(',')}`);
console.log(`STORAGE_SIGNING_SECRET=${randomBytes(32).toString('base64url')}`);
console.log(`PROFILE_TOKEN_KEY=${randomBytes(32).toString('base64url')}`);
console.log(`WEBHOOKS_SECRET_KEY=${randomBytes(32).toString('base64url')}`);
// The media file store's credentials (compose: MinIO's root user; Kubernetes: the bucket's key).
console.log(`S3_ACCESS_KEY_ID=social-${randomBytes(6).toString('hex')}`);
console.log(`S3_SECRET_ACCESS_KEY=${randomBytes(24).toString('base64url')}`);
