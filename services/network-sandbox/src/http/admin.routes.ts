import { Router } from 'express';
import { validationError } from '@social/errors';
import { asyncHandler, validator } from '@social/http';
import { isNetworkCode, NETWORK_CODES } from '@social/networks';
import { FAILURE_KINDS, type FailureRuleInput } from '../domain/failure-injector';
import type { SandboxContext } from '../domain/sandbox.context';
import { param, queryString } from './request-helpers';

const OPERATIONS = ['publish', 'lookupPublished', 'searchProfiles', 'profileInfo', 'dailyMetrics', 'postMetrics'];

const failureBody = validator<FailureRuleInput>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    properties: {
      kind: { enum: FAILURE_KINDS },
      net: { enum: NETWORK_CODES },
      accountId: { type: 'string', minLength: 1 },
      operation: { enum: OPERATIONS },
      rate: { type: 'number', minimum: 0, maximum: 1 },
      count: { type: 'integer', minimum: 1 },
      retryAfterSeconds: { type: 'integer', minimum: 0, maximum: 86_400 },
      latencyMs: { type: 'integer', minimum: 0, maximum: 600_000 },
      status: { enum: [500, 502, 503] },
    },
  },
  '/body',
);

const latencyBody = validator<{ publishMs: number }>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['publishMs'],
    properties: { publishMs: { type: 'integer', minimum: 0, maximum: 600_000 } },
  },
  '/body',
);

/** Test controls; mounted only when SANDBOX_ADMIN is on (see README). */
export function adminRoutes(ctx: SandboxContext): Router {
  const r = Router();

  r.post('/sandbox/admin/failures', (req, res) => {
    res.status(201).json(ctx.failures.add(failureBody(req.body ?? {})));
  });
  r.get('/sandbox/admin/failures', (_req, res) => {
    res.json({ items: ctx.failures.list() });
  });
  r.delete('/sandbox/admin/failures', (_req, res) => {
    res.json({ removed: ctx.failures.clear() });
  });
  r.delete('/sandbox/admin/failures/:id', (req, res) => {
    res.json({ removed: ctx.failures.remove(param(req, 'id')) ? 1 : 0 });
  });

  r.post('/sandbox/admin/latency', (req, res) => {
    ctx.failures.setPublishLatency(latencyBody(req.body ?? {}).publishMs);
    res.json({ publishMs: ctx.failures.publishLatency });
  });
  r.get('/sandbox/admin/latency', (_req, res) => {
    res.json({ publishMs: ctx.failures.publishLatency });
  });

  r.get(
    '/sandbox/admin/published/count',
    asyncHandler(async (_req, res) => {
      res.json({ total: await ctx.posts.count() });
    }),
  );

  // Exactly what was published, and how many posts and requests (the first plus replays) each
  // idempotency key produced.
  r.get(
    '/sandbox/admin/published',
    asyncHandler(async (req, res) => {
      const net = queryString(req, 'net');
      if (net !== undefined && !isNetworkCode(net)) {
        throw validationError([{ path: '/query/net', message: `must be one of ${NETWORK_CODES.join(', ')}` }]);
      }
      const filter = { net, accountId: queryString(req, 'accountId') };
      const [docs, attempts] = await Promise.all([ctx.posts.list(filter), ctx.attempts.replaysByPost(filter)]);
      docs.sort((a, b) => a.publishedAt.getTime() - b.publishedAt.getTime());
      const keys = new Map<string, { net: string; accountId: string; idempotencyKey: string; posts: number; attempts: number }>();
      for (const d of docs) {
        const k = JSON.stringify([d.net, d.accountId, d.idempotencyKey]);
        const entry = keys.get(k) ?? { net: d.net, accountId: d.accountId, idempotencyKey: d.idempotencyKey, posts: 0, attempts: 0 };
        entry.posts += 1;
        entry.attempts += 1 + (attempts.get(d._id) ?? 0);
        keys.set(k, entry);
      }
      res.json({
        total: docs.length,
        items: docs.map((d) => ({
          networkPostId: d._id,
          net: d.net,
          accountId: d.accountId,
          idempotencyKey: d.idempotencyKey,
          type: d.type,
          caption: d.caption,
          firstComment: d.firstComment,
          media: d.media,
          links: d.links,
          settings: d.settingsJson === null ? null : (JSON.parse(d.settingsJson) as unknown),
          publishedAt: d.publishedAt.toISOString(),
          attempts: 1 + (attempts.get(d._id) ?? 0),
        })),
        keys: [...keys.values()],
        duplicateKeys: [...keys.values()].filter((k) => k.posts > 1),
      });
    }),
  );

  return r;
}
