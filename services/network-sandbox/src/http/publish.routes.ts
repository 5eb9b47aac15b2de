import { Router } from 'express';
import { validationError } from '@social/errors';
import { asyncHandler, validator } from '@social/http';
import { POST_TYPES } from '@social/networks';
import type { PublishContent, PublishedPostsUseCases } from '../domain/published-posts.use-cases';
import type { ListRecentPosts } from '../domain/recent-posts.use-case';
import { bearerOf, netOf, param, queryString } from './request-helpers';

const nullableString = { type: ['string', 'null'], maxLength: 100_000 };

const publishBody = validator<Partial<PublishContent>>(
  {
    type: 'object',
    additionalProperties: false,
    required: ['type'],
    properties: {
      type: { enum: POST_TYPES },
      caption: nullableString,
      firstComment: nullableString,
      media: {
        type: 'array',
        maxItems: 50,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['mimeType'],
          properties: {
            mimeType: { type: 'string', pattern: '^[a-z]+/[a-zA-Z0-9.+-]+$' },
            url: { type: 'string', minLength: 1, maxLength: 4096 },
            sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
            sizeBytes: { type: 'integer', minimum: 0 },
            durationSec: { type: 'number', minimum: 0 },
            width: { type: 'integer', minimum: 0 },
            height: { type: 'integer', minimum: 0 },
          },
        },
      },
      links: {
        type: 'array',
        maxItems: 10,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['link'],
          properties: {
            link: { type: 'string', minLength: 1, maxLength: 2048 },
            title: nullableString,
            description: nullableString,
            imageUrl: nullableString,
          },
        },
      },
      settings: { type: ['object', 'null'] },
    },
  },
  '/body',
);

// Printable ASCII without spaces: keys are built by callers from ids and revisions.
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export function publishRoutes(published: PublishedPostsUseCases, recent: ListRecentPosts): Router {
  const r = Router();

  r.post(
    '/sandbox/:net/accounts/:accountId/posts',
    asyncHandler(async (req, res) => {
      const net = netOf(req);
      const key = req.header('idempotency-key');
      if (!key || !IDEMPOTENCY_KEY.test(key)) {
        throw validationError([{ path: '/headers/idempotency-key', message: 'send 1 to 255 printable ASCII characters' }]);
      }
      const body = publishBody(req.body ?? {});
      const outcome = await published.publish({
        net,
        accountId: param(req, 'accountId'),
        token: bearerOf(req),
        idempotencyKey: key,
        content: {
          type: body.type!,
          caption: body.caption ?? null,
          firstComment: body.firstComment ?? null,
          media: body.media ?? [],
          links: body.links ?? [],
          settings: body.settings ?? null,
        },
      });
      res.status(outcome.created ? 201 : 200).json({ networkPostId: outcome.networkPostId, publishedAt: outcome.publishedAt });
    }),
  );

  // The account's recent posts, newest first: how callers reconcile where keys are not kept.
  r.get(
    '/sandbox/:net/accounts/:accountId/posts',
    asyncHandler(async (req, res) => {
      res.json(
        await recent.list({
          net: netOf(req),
          accountId: param(req, 'accountId'),
          token: bearerOf(req),
          since: queryString(req, 'since'),
          cursor: queryString(req, 'cursor'),
          limit: queryString(req, 'limit'),
        }),
      );
    }),
  );

  r.get(
    '/sandbox/:net/accounts/:accountId/posts/by-key/:key',
    asyncHandler(async (req, res) => {
      res.json(
        await published.lookup({
          net: netOf(req),
          accountId: param(req, 'accountId'),
          token: bearerOf(req),
          idempotencyKey: param(req, 'key'),
        }),
      );
    }),
  );

  return r;
}
