import { Router } from 'express';
import { asyncHandler, workspaceOf } from '@social/http';
import { listProfiles, type ProfilesDeps } from '../domain/profiles.use-cases';
import { parseListQuery } from './query.rules';
import { formB, profileView } from './views';

export function profilesRoutes(deps: ProfilesDeps): Router {
  const r = Router();
  r.get(
    '/profiles',
    asyncHandler(async (req, res) => {
      const { filter, page } = parseListQuery(req.query);
      const { items, total } = await listProfiles(deps, workspaceOf(req), filter, page);
      res.json(formB(items.map(profileView), total, page.skip));
    }),
  );
  return r;
}
