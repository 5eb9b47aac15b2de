import { networkRef } from '@social/networks';
import type { Competitor, Profile } from '../domain/ports';

/** Spec 2.5. */
export const profileView = (p: Profile) => ({
  id: p.id,
  name: p.name,
  username: p.username,
  picture: p.picture,
  net: networkRef(p.net),
  statusLevel: p.statusLevel,
});

/** Spec 2.5, plus the `profileId` it was added with (the search result's id). */
export const competitorView = (c: Competitor) => ({
  id: c.id,
  profileId: c.profileId,
  name: c.name,
  username: c.username,
  picture: c.picture,
  net: networkRef(c.net),
  statusLevel: c.statusLevel,
});

/** Form B (spec 2.1). */
export const formB = <T>(items: T[], total: number, skip: number) => ({ hasMore: skip + items.length < total, items, total });
