import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

/** Fragments live in packages/openapi/spec, one per area, merged in file-name order. */
export const SPEC_DIR = process.env['OPENAPI_DIR'] ?? path.resolve(__dirname, '../spec');

type Doc = Record<string, any>;

function mergeInto(target: Doc, source: Doc, where: string): void {
  for (const [key, value] of Object.entries(source)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && target[key] && typeof target[key] === 'object') {
      mergeInto(target[key], value, `${where}/${key}`);
    } else if (key in target && where.split('/').length >= 3) {
      throw new Error(`OpenAPI fragments define ${where}/${key} twice`);
    } else {
      target[key] = value;
    }
  }
}

let cached: Doc | undefined;

/** The whole public API as one OpenAPI 3.1 document. */
export function loadOpenApi(dir = SPEC_DIR): Doc {
  if (cached && dir === SPEC_DIR) return cached;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
  const doc: Doc = {};
  for (const f of files) mergeInto(doc, parse(fs.readFileSync(path.join(dir, f), 'utf8')), '');
  if (dir === SPEC_DIR) cached = doc;
  return doc;
}
