import type { CompetitorMessage, GetCompetitorRequest } from '@social/contracts';
import type { CallContext } from '@social/grpc';
import { competitorNotFound } from '../domain/competitors.errors';
import { getCompetitor, type CompetitorsDeps } from '../domain/competitors.use-cases';
import { competitorMessage } from './messages';

export const getCompetitorRpc =
  (deps: Pick<CompetitorsDeps, 'competitors'>) =>
  async (req: GetCompetitorRequest, ctx: CallContext): Promise<CompetitorMessage> => {
    if (!req.competitor_id) throw competitorNotFound();
    return competitorMessage(await getCompetitor(deps, ctx.workspaceId, req.competitor_id));
  };
