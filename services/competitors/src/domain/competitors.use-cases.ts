import type { PlanLimits } from '@social/config';
import { validationError } from '@social/errors';
import { getNetwork, isNetworkError } from '@social/networks';
import { log } from '../logger';
import { backfillWindow } from './collection-window';
import { competitorNotFound, planLimitReached, publicProfileNotFound, searchNotSupported } from './competitors.errors';
import type { Competitor, CompetitorStore, EventOutbox, ListFilter, NetworkClient, Page } from './ports';
import { decodePublicProfileId } from './public-profile-id';

export interface CompetitorsDeps {
  competitors: CompetitorStore;
  outbox: EventOutbox;
  adapter: NetworkClient;
  plans: Record<string, PlanLimits>;
  defaultPlan: string;
  backfillDays: number;
  /** Called after an event was recorded, so it goes out now rather than at the next relay tick. */
  eventsRecorded: () => void;
}

/** The plan of the token; a workspace without one (or with a plan no longer configured) gets the default. */
export function planOf(
  deps: Pick<CompetitorsDeps, 'plans' | 'defaultPlan'>,
  plan: string | undefined,
): { name: string; limits: PlanLimits } {
  const name = plan !== undefined && deps.plans[plan] ? plan : deps.defaultPlan;
  return { name, limits: deps.plans[name] ?? { competitors: 0 } };
}

/** The competitors of a workspace: public profiles it follows, within its plan's limit. */
export class CompetitorsUseCases {
  constructor(private readonly deps: CompetitorsDeps) {}

  /**
   * Adds a public profile as a competitor and records its backfill job. The existing record is
   * returned when the profile is already tracked. Two unique indexes keep this right under
   * concurrency without transactions or counters: (workspace, profile) makes concurrent adds of one
   * profile collide, and (workspace, slot) with slots 0 … limit-1 makes the plan limit hold.
   */
  async add(workspaceId: string, plan: string | undefined, input: { profileId: string }): Promise<Competitor> {
    const deps = this.deps;
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
    const free = Array.from({ length: limits.competitors }, (_, i) => i).filter((s) => !used.has(s));
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

    const id = deps.competitors.newId();
    // Recorded before the competitor, so a crash in between cannot lose the job (the relay drops a
    // job whose competitor never appeared); withdrawn when this add does not create the record.
    const eventId = await deps.outbox.add({
      kind: 'backfill',
      targetKind: 'competitor',
      targetId: id,
      workspaceId,
      net: ref.net,
      networkAccountId: ref.accountId,
      ...backfillWindow(deps.backfillDays),
    });
    try {
      for (const slot of free) {
        const created = await deps.competitors.insert(workspaceId, {
          id,
          profileId: input.profileId,
          slot,
          net: ref.net,
          networkAccountId: ref.accountId,
          name: info.name,
          username: info.username,
          picture: info.picture,
        });
        if (created) {
          deps.eventsRecorded();
          log.info('competitor added', { competitorId: created.id, profileId: input.profileId, slot });
          return created;
        }
        // Either the profile was added concurrently (return that record) or the slot was taken.
        const winner = await deps.competitors.findByProfile(workspaceId, input.profileId);
        if (winner) {
          await deps.outbox.remove(eventId);
          return winner;
        }
      }
    } catch (err) {
      await deps.outbox.remove(eventId).catch(() => undefined);
      throw err;
    }
    await deps.outbox.remove(eventId);
    throw planLimitReached(planName, limits.competitors);
  }

  /** Removes only the association; the public profile can be added again (as a new competitor id). */
  async remove(workspaceId: string, competitorId: string): Promise<void> {
    const deps = this.deps;
    const c = await deps.competitors.findById(workspaceId, competitorId);
    if (!c) throw competitorNotFound();
    // Recorded first; the relay publishes it only once the competitor is gone, and drops it if the
    // delete never happened.
    const eventId = await deps.outbox.add({
      kind: 'removed',
      targetKind: 'competitor',
      targetId: c.id,
      workspaceId,
      net: c.net,
      networkAccountId: c.networkAccountId,
    });
    if (!(await deps.competitors.delete(workspaceId, competitorId))) {
      await deps.outbox.remove(eventId);
      throw competitorNotFound(); // a concurrent DELETE removed it first
    }
    deps.eventsRecorded();
    log.info('competitor removed', { competitorId, profileId: c.profileId });
  }

  async get(workspaceId: string, competitorId: string): Promise<Competitor> {
    const c = await this.deps.competitors.findById(workspaceId, competitorId);
    if (!c) throw competitorNotFound();
    return c;
  }

  async list(workspaceId: string, filter: ListFilter, page: Page) {
    return this.deps.competitors.list(workspaceId, filter, page);
  }
}
