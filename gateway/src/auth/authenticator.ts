import { unauthenticated } from '@social/errors';
import type { WorkspaceRepository } from '../data/workspace.repository';
import type { KeyCache } from './key-cache';
import { keyMatches } from './api-key';

export interface Principal {
  workspaceId: string;
  plan: string;
  apiId: string;
}

/** Id/key format bounds: anything outside is rejected before any lookup (same 401 either way). */
const API_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_KEY_LENGTH = 256;

export class Authenticator {
  constructor(
    private readonly repo: WorkspaceRepository,
    private readonly cache: KeyCache,
  ) {}

  /** Every failure (missing, unknown id, wrong key, revoked) is the same 401. */
  async authenticate(apiId: string | undefined, apiKey: string | undefined): Promise<Principal> {
    if (!apiId || !apiKey || !API_ID.test(apiId) || apiKey.length > MAX_KEY_LENGTH) {
      keyMatches(apiKey ?? '', undefined);
      throw unauthenticated();
    }
    let record = await this.cache.get(apiId);
    if (record === undefined) {
      record = await this.repo.findKey(apiId);
      await this.cache.set(apiId, record);
    }
    const ok = keyMatches(apiKey, record?.keyHash);
    if (!ok || !record || record.revoked) throw unauthenticated();
    return { workspaceId: record.workspaceId, plan: record.plan, apiId };
  }
}
