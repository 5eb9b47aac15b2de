import { Router } from 'express';
import { validationError } from '@social/errors';
import { asyncHandler, validator } from '@social/http';
import { isNetworkCode, NETWORK_CODES } from '@social/networks';
import { FAILURE_KINDS, FAILURE_PHASES, type FailureRuleInput, ruleProblems } from '../domain/failure-injector';
import type { SandboxContext } from '../domain/sandbox.context';
import { param, queryString } from './request-helpers';

const OPERATIONS = ['publish', 'lookupPublished', 'recentPosts', 'searchProfiles', 'profileInfo', 'dailyMetrics', 'postMetrics'];

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
      phase: { enum: FAILURE_PHASES },
    },
  },
  '/body',
);

const YEAR_MS = 366 * 86_400_000;
const clockBody = validator<{ offsetMs: number }>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['offsetMs'],
    properties: { offsetMs: { type: 'integer', minimum: -10 * YEAR_MS, maximum: 10 * YEAR_MS } },
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
    const input = failureBody(req.body ?? {});
    const problems = ruleProblems(input);
    if (problems.length > 0) throw validationError(problems);
    res.status(201).json(ctx.failures.add(input));
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

  // Shifts the sandbox's time (publishedAt, key windows, listings, metrics): a day-long window can
  // pass in a test. Offsets are absolute (not added up) so a test can always go back to 0.
  const clock = () => ({ offsetMs: ctx.clock.offsetMs, now: new Date(ctx.now()).toISOString() });
  r.post('/sandbox/admin/clock', (req, res) => {
    ctx.clock.setOffset(clockBody(req.body ?? {}).offsetMs);
    res.json(clock());
  });
  r.get('/sandbox/admin/clock', (_req, res) => {
    res.json(clock());
  });

  r.get(
    '/sandbox/admin/published/count',
    asyncHandler(async (_req, res) => {
      res.json({ total: await ctx.posts.count() });
    }),
  );

  // Exactly what was published, and how many posts each client key (the Idempotency-Key header)
  // created: on networks without keys every request creates one, so a second publish of one post
  // shows as created 2. Replays (networks with keys) are counted per post in `attempts`.
  r.get(
    '/sandbox/admin/published',
    asyncHandler(async (req, res) => {
      const net = queryString(req, 'net');
      if (net !== undefined && !isNetworkCode(net)) {
        throw validationError([{ path: '/query/net', message: `must be one of ${NETWORK_CODES.join(', ')}` }]);
      }
      const filter = { net, accountId: queryString(req, 'accountId') };
      const [docs, replays] = await Promise.all([
        ctx.posts.list({ ...filter, clientKeyPrefix: queryString(req, 'clientKeyPrefix') }),
        ctx.attempts.replaysByPost(filter),
      ]);
      docs.sort((a, b) => a.publishedAt.getTime() - b.publishedAt.getTime());
      const clientKeys = new Map<string, { net: string; accountId: string; clientKey: string; created: number }>();
      for (const d of docs) {
        const k = JSON.stringify([d.net, d.accountId, d.clientKey]);
        const entry = clientKeys.get(k) ?? { net: d.net, accountId: d.accountId, clientKey: d.clientKey, created: 0 };
        entry.created += 1;
        clientKeys.set(k, entry);
      }
      res.json({
        total: docs.length,
        items: docs.map((d) => ({
          networkPostId: d.id,
          net: d.net,
          accountId: d.accountId,
          clientKey: d.clientKey,
          type: d.type,
          caption: d.caption,
          firstComment: d.firstComment,
          media: d.media,
          links: d.links,
          settings: d.settingsJson === null ? null : (JSON.parse(d.settingsJson) as unknown),
          publishedAt: d.publishedAt.toISOString(),
          attempts: 1 + (replays.get(d.id) ?? 0),
        })),
        clientKeys: [...clientKeys.values()],
        duplicateClientKeys: [...clientKeys.values()].filter((k) => k.created > 1),
      });
    }),
  );

  return r;
}
