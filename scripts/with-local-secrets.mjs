#!/usr/bin/env node
// Runs a node entry point with the local secrets of this install (scripts/local-secrets.mjs), as
// the given process of system.json would have them: `node scripts/with-local-secrets.mjs gateway gateway/dist/admin/cli.js ...`.
import { spawnSync } from 'node:child_process';
import { ensureLocalSecrets, secretsFor } from './local-secrets.mjs';

const [name, entry, ...args] = process.argv.slice(2);
const env = { ...process.env, ...secretsFor(name, ensureLocalSecrets()) };
const r = spawnSync(process.execPath, [entry, ...args], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
