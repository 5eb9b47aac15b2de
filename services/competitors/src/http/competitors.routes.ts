import { Router } from 'express';
import { asyncHandler, validator, workspaceOf } from '@social/http';
import type { CompetitorsUseCases } from '../domain/competitors.use-cases';
import { parseListQuery } from './query.rules';
import { competitorView, formB } from './views';

const validateAdd = validator<{ profileId: string }>({
  type: 'object',
  required: ['profileId'],
  additionalProperties: false,
  properties: { profileId: { type: 'string', minLength: 1, maxLength: 200 } },
});

export function competitorsRoutes(competitors: CompetitorsUseCases): Router {
  const r = Router();
  r.get(
    '/competitors',
    asyncHandler(async (req, res) => {
      const { filter, page } = parseListQuery(req.query);
      const { items, total } = await competitors.list(workspaceOf(req), filter, page);
      res.json(formB(items.map(competitorView), total, page.skip));
    }),
  );
  r.post(
    '/competitor',
    asyncHandler(async (req, res) => {
      const input = validateAdd(req.body);
      const c = await competitors.add(workspaceOf(req), req.auth?.plan, input);
      // Spec 4.1: 201 also when the record already existed (the same id comes back).
      res.status(201).json({ id: c.id, profileId: c.profileId });
    }),
  );
  r.delete(
    '/competitor/:competitorId',
    asyncHandler(async (req, res) => {
      await competitors.remove(workspaceOf(req), req.params['competitorId']!);
      res.json({ success: true });
    }),
  );
  return r;
}
