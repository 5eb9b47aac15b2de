#!/usr/bin/env node
// Prints `export VAR=port` for every default port of system.json that something else already holds,
// naming a free port instead, so `pnpm start` (scripts/run-system.mjs reads these variables) can run
// beside whatever holds it. Used by .ci/run; prints nothing when every default port is free.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { processes } = JSON.parse(readFileSync(path.join(root, 'system.json'), 'utf8'));

function listen(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address();
      server.close(() => resolve(bound));
    });
  });
}

function holderOf(port) {
  try {
    return execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' }).trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

const wanted = processes.flatMap((p) => [
  { env: p.portEnv, port: p.port },
  ...(p.grpc ? [{ env: p.grpc.portEnv, port: p.grpc.port }] : []),
]);
for (const { env, port } of wanted) {
  if (process.env[env] || (await listen(port)) !== undefined) continue;
  const free = await listen(0);
  process.stderr.write(`port ${port} (${env}) is taken by ${holderOf(port)}; using ${free}\n`);
  process.stdout.write(`export ${env}=${free}\n`);
}
