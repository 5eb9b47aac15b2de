import type { PlanLimits } from '@social/config';
import { validationError } from '@social/errors';
import { getNetwork, isNetworkError, type NetworkAdapter } from '@social/networks';
import { isDuplicateKeyError } from '@social/mongo';
import type { Competitor, CompetitorRepository } from '../data/competitor.repository';
import { newId } from '../data/ids';
import type { ListFilter, Page } from '../data/list-filter';
import { pendingEvent } from '../events/pending-event';
import { log } from '../logger';
import { backfillWindow } from './collection-window';
import { competitorNotFound, planLimitReached, publicProfileNotFound, searchNotSupported } from './competitors.errors';
import { decodePublicProfileId } from './public-profile-id';

export interface CompetitorsDeps {
  competitors: CompetitorRepository;
  adapter: NetworkAdapter;
  plans: Record<string, PlanLimits>;
  defaultPlan: string;
  backfillDays: number;
  eventsRecorded: () => void;
}

/** The plan of the token; a workspace without one (or with a plan no longer configured) gets the default. */
export function planOf(deps: Pick<CompetitorsDeps, 'plans' | 'defaultPlan'>, plan: string | undefined): { name: string; limits: PlanLimits } {
  const name = plan !== undefined && deps.plans[plan] ? plan : deps.defaultPlan;
  return { name, limits: deps.plans[name] ?? { competitors: 0 } };
}

/**
 * Adds a public profile as a competitor and records its backfill job. The existing record is
 * returned when the profile is already tracked. Two unique indexes keep this right under
 * concurrency without transactions or counters: (workspace, profile) makes concurrent adds of one
 * profile collide, and (workspace, slot) with slots 0 … limit-1 makes the plan limit hold.
 */
export async function addCompetitor(
  deps: CompetitorsDeps,
  workspaceId: string,
  plan: string | undefined,
  input: { profileId: string },
): Promise<Competitor> {
  const ref = decodePublicProfileId(input.profileId);
  if (!ref) {
    throw validationError([{ path: '/profileId', message: 'is not a profile id returned by GET /search/profiles' }]);
  }
  const network = getNetwork(ref.net);
  if (!network.profileSearch) throw searchNotSupported(network.name);

  const existing = await deps.competitors.findByProfile(workspaceId, input.profileId);
  if (existing) return existing;

  const { name: planName, limits } = planOf(deps, plan);
  const used = await deps.competitors.usedSlots(workspaceId);
  const free = Array.from({ length: limits.competitors }, (_, i) => String(i)).filter((s) => !used.has(s));
  // Downgraded workspaces can hold more competitors than their plan's slots: count them too.
  if (free.length === 0 || used.size >= limits.competitors) throw planLimitReached(planName, limits.competitors);

  let info;
  try {
    info = await deps.adapter.profileInfo({ net: ref.net, profileId: ref.accountId });
  } catch (err) {
    if (isNetworkError(err, 'NOT_FOUND')) throw publicProfileNotFound();
    throw err;
  }
  if (info.kind === 'personal') throw publicProfileNotFound();

  const id = newId();
  const event = pendingEvent({ kind: 'backfill', ...backfillWindow(deps.backfillDays) });
  for (const slot of free) {
    try {
      const created = await deps.competitors.insert(
        workspaceId,
        {
          id,
          profileId: input.profileId,
          slot: Number(slot),
          net: ref.net,
          networkAccountId: ref.accountId,
          name: info.name,
          username: info.username,
          picture: info.picture,
        },
        event,
      );
      deps.eventsRecorded();
      log.info('competitor added', { competitorId: created.id, profileId: input.profileId, slot });
      return created;
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      // Either the profile was added concurrently (return that record) or the slot was taken.
      const winner = await deps.competitors.findByProfile(workspaceId, input.profileId);
      if (winner) return winner;
    }
  }
  throw planLimitReached(planName, limits.competitors);
}

/** Removes the association only; the public profile can be added again (as a new competitor id). */
export async function removeCompetitor(deps: Pick<CompetitorsDeps, 'competitors' | 'eventsRecorded'>, workspaceId: string, competitorId: string): Promise<void> {
  const removed = await deps.competitors.markRemoved(workspaceId, competitorId, pendingEvent({ kind: 'removed' }));
  if (!removed) throw competitorNotFound();
  deps.eventsRecorded();
  log.info('competitor removed', { competitorId, profileId: removed.profileId });
}

export async function getCompetitor(deps: Pick<CompetitorsDeps, 'competitors'>, workspaceId: string, competitorId: string): Promise<Competitor> {
  const c = await deps.competitors.findById(workspaceId, competitorId);
  if (!c) throw competitorNotFound();
  return c;
}

export async function listCompetitors(deps: Pick<CompetitorsDeps, 'competitors'>, workspaceId: string, filter: ListFilter, page: Page) {
  return deps.competitors.list(workspaceId, filter, page);
}
