import { Router } from 'express';
import { unit } from '../domain/hash';
import type { SandboxContext } from '../domain/sandbox.context';
import { param } from './request-helpers';

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Profile and post pictures: a small deterministic SVG per id, so the URLs the sandbox hands out
 * load in a browser without any stored files.
 */
export function picturesRoutes(ctx: SandboxContext): Router {
  const r = Router();
  r.get('/sandbox/pictures/:file', (req, res) => {
    const id = param(req, 'file').replace(/\.svg$/, '');
    const hue = Math.floor(unit('picture', id) * 360);
    // Account pictures show the account's initials; post pictures only a colour.
    const name = ctx.directory.findById(id)?.name ?? '';
    const initials = name
      .split(' ')
      .map((w) => w[0] ?? '')
      .join('')
      .slice(0, 2)
      .toUpperCase();
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">` +
      `<rect width="256" height="256" fill="hsl(${hue},55%,45%)"/>` +
      `<text x="128" y="150" font-family="sans-serif" font-size="80" fill="#fff" text-anchor="middle">${escapeXml(initials)}</text></svg>`;
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('image/svg+xml').send(svg);
  });
  return r;
}
