#!/usr/bin/env node
// Every Markdown link in the repository stays in it: a relative link must name a file or folder that
// exists here, nothing may point outside the repository (`../shared/…` is on no clone), and web links
// are allowed only when listed below with a reason. Run by `pnpm lint`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SKIP_DIRS = new Set(['node_modules', 'dist', 'coverage', '.git', '.run', '.local']);

/** Web links a document may carry, each with the reason it is needed. */
const ALLOWED_WEB_LINKS = new Map([
  // e.g. ['https://www.standardwebhooks.com/', 'the webhook header format we follow'],
]);

function markdownFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) markdownFiles(path.join(dir, entry.name), out);
    } else if (entry.name.endsWith('.md')) {
      out.push(path.join(dir, entry.name));
    }
  }
  return out;
}

/** Link targets of a document, outside fenced code blocks and inline code. */
function linksOf(text) {
  const links = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: m[1], line: i + 1 });
    for (const m of prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/g)) links.push({ target: m[1], line: i + 1 });
  });
  return links;
}

const problems = [];
for (const file of markdownFiles(ROOT)) {
  const rel = path.relative(ROOT, file);
  for (const { target, line } of linksOf(fs.readFileSync(file, 'utf8'))) {
    const where = `${rel}:${line}`;
    if (/^https?:\/\//i.test(target)) {
      if (!ALLOWED_WEB_LINKS.has(target))
        problems.push(`${where}: web link ${target} (keep the content here, or add it to ALLOWED_WEB_LINKS with a reason)`);
      continue;
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^mailto:/i.test(target)) problems.push(`${where}: link ${target} leaves the repository`);
      continue;
    }
    const pathPart = decodeURIComponent(target.split('#')[0]);
    if (!pathPart) continue; // an anchor in the same document
    const resolved = path.resolve(path.dirname(file), pathPart);
    if (resolved !== ROOT && !resolved.startsWith(ROOT + path.sep)) {
      problems.push(`${where}: ${target} points outside the repository`);
    } else if (!fs.existsSync(resolved)) {
      problems.push(`${where}: ${target} does not exist`);
    }
  }
}

if (problems.length) {
  console.error(`Markdown links that do not resolve inside the repository:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log('doc links: every Markdown link resolves inside the repository');
