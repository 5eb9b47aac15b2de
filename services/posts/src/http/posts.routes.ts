import { Router } from 'express';
import { validationError, type ErrorDetail } from '@social/errors';
import { asyncHandler, csv, parsePage, validator, workspaceOf } from '@social/http';
import type { PostFilter } from '../domain/posts/ports';
import { createPostSchema, updatePostSchema } from '../domain/posts/post.schema';
import { POST_TYPES, STAGES, type PostInput, type PostType, type PostUpdate, type Stage } from '../domain/posts/post.types';
import type { PostsUseCases } from '../domain/posts/posts.use-cases';
import { isStageOperation, STAGE_OPERATIONS } from '../domain/posts/stage-machine';

const validateCreate = validator<PostInput>(createPostSchema);
const validateUpdate = validator<PostUpdate>(updatePostSchema);
const validateStageBody = validator<{ comment?: string | null }>({
  type: 'object',
  additionalProperties: false,
  properties: { comment: { type: ['string', 'null'], maxLength: 2000 } },
});

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** since: from that instant (a date means its 00:00 UTC); until: through that instant or that whole day. */
function parseTime(raw: unknown, key: 'since' | 'until', problems: ErrorDetail[]): Date | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = String(raw);
  const ms = Date.parse(DATE_ONLY.test(s) ? `${s}T00:00:00.000Z` : s);
  if (typeof raw !== 'string' || Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(s)) {
    problems.push({ path: `/query/${key}`, message: 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp' });
    return undefined;
  }
  if (key === 'since') return new Date(ms);
  return new Date(ms + (DATE_ONLY.test(s) ? DAY_MS : 1));
}

function parseEnumList<T extends string>(raw: unknown, key: string, allowed: readonly T[], problems: ErrorDetail[]): T[] | undefined {
  const values = csv(raw);
  if (values === undefined) return undefined;
  const bad = values.filter((v) => !(allowed as readonly string[]).includes(v));
  if (bad.length > 0 || values.length === 0) {
    problems.push({ path: `/query/${key}`, message: `must be a comma-separated list of ${allowed.join(', ')}` });
    return undefined;
  }
  return values as T[];
}

export function parsePostQuery(query: Record<string, unknown>): { filter: PostFilter; page: { skip: number; take: number } } {
  const problems: ErrorDetail[] = [];
  const page = parsePage(query, problems);
  const filter: PostFilter = {};
  const since = parseTime(query['since'], 'since', problems);
  const until = parseTime(query['until'], 'until', problems);
  if (since) filter.since = since;
  if (until) filter.until = until;
  if (since && until && until <= since) problems.push({ path: '/query/until', message: 'must be after since' });
  const stages = parseEnumList<Stage>(query['stages'], 'stages', STAGES, problems);
  const types = parseEnumList<PostType>(query['types'], 'types', POST_TYPES, problems);
  if (stages) filter.stages = stages;
  if (types) filter.types = types;
  for (const key of ['profileIds', 'labelIds'] as const) {
    const ids = csv(query[key]);
    if (ids === undefined) continue;
    if (ids.length === 0) problems.push({ path: `/query/${key}`, message: 'must be a comma-separated list of ids' });
    else filter[key] = ids;
  }
  const search = query['search'];
  if (search !== undefined) {
    if (typeof search !== 'string') problems.push({ path: '/query/search', message: 'must be given once' });
    else if (search.trim() !== '') filter.search = search.trim();
  }
  if (problems.length > 0) throw validationError(problems);
  return { filter, page };
}

export function postsRoutes(posts: PostsUseCases): Router {
  const r = Router();
  r.get(
    '/posts',
    asyncHandler(async (req, res) => {
      const { filter, page } = parsePostQuery(req.query);
      res.json(await posts.list(workspaceOf(req), filter, page));
    }),
  );
  r.post(
    '/posts',
    asyncHandler(async (req, res) => {
      res.status(201).json(await posts.create(workspaceOf(req), validateCreate(req.body)));
    }),
  );
  r.get(
    '/posts/:postId',
    asyncHandler(async (req, res) => {
      res.json(await posts.get(workspaceOf(req), req.params['postId']!));
    }),
  );
  r.put(
    '/posts/:postId',
    asyncHandler(async (req, res) => {
      res.json(await posts.update(workspaceOf(req), req.params['postId']!, validateUpdate(req.body)));
    }),
  );
  r.get(
    '/posts/:postId/validate',
    asyncHandler(async (req, res) => {
      res.json(await posts.validate(workspaceOf(req), req.params['postId']!));
    }),
  );
  r.delete(
    '/posts/:postId',
    asyncHandler(async (req, res) => {
      res.json(await posts.delete(workspaceOf(req), req.params['postId']!));
    }),
  );
  r.patch(
    '/posts/:postId/stage/:op',
    asyncHandler(async (req, res) => {
      const op = req.params['op']!;
      if (!isStageOperation(op)) {
        throw validationError([{ path: '/path/op', message: `must be one of ${STAGE_OPERATIONS.join(', ')}` }]);
      }
      const body = validateStageBody(req.body ?? {});
      res.json(await posts.changeStage(workspaceOf(req), req.params['postId']!, op, body.comment ?? null));
    }),
  );
  return r;
}
