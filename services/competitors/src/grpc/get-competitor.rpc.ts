import type { CompetitorMessage, GetCompetitorRequest } from '@social/contracts';
import type { CallContext } from '@social/grpc';
import { competitorNotFound } from '../domain/competitors.errors';
import type { CompetitorsUseCases } from '../domain/competitors.use-cases';
import { competitorMessage } from './messages';

export const getCompetitorRpc =
  (competitors: CompetitorsUseCases) =>
  async (req: GetCompetitorRequest, ctx: CallContext): Promise<CompetitorMessage> => {
    if (!req.competitor_id) throw competitorNotFound();
    return competitorMessage(await competitors.get(ctx.workspaceId, req.competitor_id));
  };
