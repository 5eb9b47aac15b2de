import { getNetwork, type NetworkCode, type ProfileKind } from '@social/networks';

export interface SeedAccount {
  id: string;
  net: NetworkCode;
  kind: ProfileKind;
  name: string;
  username: string;
}

// Fixed fixtures, independent of SANDBOX_SEED, so account ids stay stable for the admin CLI and
// tests. Names are chosen so that name search has overlaps (e.g. "coffee" matches a business, a
// creator and a personal account) and personal accounts can be told apart.
const OWN = ['Acme Studio', 'Brightside Media', 'Cobalt Agency'];
const BUSINESS = ['Northwind Coffee Roasters', 'Harbor Lane Bakery', 'Summit Outdoor Gear', 'Lumen Design Studio', 'Pixel Forge Games'];
const CREATORS = ['Coffee With Leo', 'Maya Chen Travels', 'Fit With Sam'];
const PERSONAL = ['Ana Coffee', 'Tom Rivers', 'Priya Nair'];
const LISTINGS = ['Northwind Coffee Roasters', 'Harbor Lane Bakery', 'Green Leaf Dental', 'City Bikes Repair'];
const AD_ACCOUNTS = ['Acme Studio Ads', 'Brightside Media Ads', 'Cobalt Agency Ads'];

const KIND_TAG: Record<ProfileKind, string> = { own: 'own', business: 'biz', creator: 'cre', personal: 'per' };

/** `Northwind Coffee Roasters` → `northwind.coffee.roasters` (photo-style) or `northwindcoffeeroasters`. */
export function usernameOf(name: string, dotted: boolean): string {
  const words = name
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, '')
    .split(' ')
    .filter(Boolean);
  return words.join(dotted ? '.' : '');
}

function make(net: NetworkCode, kind: ProfileKind, names: readonly string[], count = names.length): SeedAccount[] {
  const prefix = getNetwork(net).metricPrefix;
  const dotted = net === 'photoNet' || net === 'photoNetV2';
  return names.slice(0, count).map((name, i) => ({
    id: `${prefix}-${KIND_TAG[kind]}-${i + 1}`,
    net,
    kind,
    name,
    username: usernameOf(name, dotted),
  }));
}

const FULL: readonly NetworkCode[] = ['generalNet', 'photoNet', 'photoNetV2'];
const SMALL: readonly NetworkCode[] = ['professionalNet', 'shortVideoNet', 'conversationNet', 'videoNet', 'microblogNet'];

/** Every account of every network, in a stable order. */
export function seedAccounts(): SeedAccount[] {
  const out: SeedAccount[] = [];
  for (const net of FULL) {
    out.push(
      ...make(net, 'own', OWN),
      ...make(net, 'business', BUSINESS),
      ...make(net, 'creator', CREATORS),
      ...make(net, 'personal', PERSONAL),
    );
  }
  for (const net of SMALL) {
    out.push(
      ...make(net, 'own', OWN),
      ...make(net, 'business', BUSINESS, 3),
      ...make(net, 'creator', CREATORS, 2),
      ...make(net, 'personal', PERSONAL, 2),
    );
  }
  out.push(...make('listingNet', 'own', OWN), ...make('listingNet', 'business', LISTINGS));
  out.push(...make('adNet', 'own', AD_ACCOUNTS));
  return out;
}
