import type { CompetitorMessage, ProfileMessage } from '@social/contracts';
import { networkRef } from '@social/networks';
import type { Competitor, Profile } from '../domain/ports';

export const profileMessage = (p: Profile): ProfileMessage => ({
  id: p.id,
  name: p.name,
  username: p.username,
  picture: p.picture,
  net: networkRef(p.net),
  status_level: p.statusLevel,
  network_account_id: p.networkAccountId,
  publish_ready: p.statusLevel === 'OK',
});

export const competitorMessage = (c: Competitor): CompetitorMessage => ({
  id: c.id,
  profile_id: c.profileId,
  name: c.name,
  username: c.username,
  picture: c.picture,
  net: networkRef(c.net),
  status_level: c.statusLevel,
  network_account_id: c.networkAccountId,
});
