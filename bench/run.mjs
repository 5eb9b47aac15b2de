#!/usr/bin/env node
// `pnpm bench <name>`: runs bench/<name>.mjs (after `pnpm build`). Each prints a table.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .map((f) => f.slice(0, -4));
const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(`Usage: pnpm bench <${available.join('|')}>`);
  process.exit(2);
}
await import(pathToFileURL(path.join(dir, `${name}.mjs`)).href);
