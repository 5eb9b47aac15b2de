import { Router } from 'express';
import { asyncHandler, workspaceOf } from '@social/http';
import type { ProfilesUseCases } from '../domain/profiles.use-cases';
import { parseListQuery } from './query.rules';
import { formB, profileView } from './views';

export function profilesRoutes(profiles: ProfilesUseCases): Router {
  const r = Router();
  r.get(
    '/profiles',
    asyncHandler(async (req, res) => {
      const { filter, page } = parseListQuery(req.query);
      const { items, total } = await profiles.list(workspaceOf(req), filter, page);
      res.json(formB(items.map(profileView), total, page.skip));
    }),
  );
  return r;
}
