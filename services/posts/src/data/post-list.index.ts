import { createLogger } from '@social/logger';
import type { PostRecord } from '../domain/posts/post.types';
import type { PostFilter, PostList } from '../domain/posts/ports';
import type { ListEntry, PostRepository } from './post.repository';

const log = createLogger('posts:list-index');

interface Cached {
  generation: string | null;
  entries: ListEntry[];
}

/**
 * The list of one workspace's posts, held in memory and checked against the workspace's list
 * generation on every request. Why: on FerretDB only equality filters reach the database, so a
 * sorted page and its `total` each cost a pass over every post of the workspace (~0.3 ms a post),
 * and even reading a page by ids costs a query per post (no `$in` pushdown); here a request costs
 * one read of the generation and work in memory.
 *
 * Correctness across replicas: every write changes the post first and then sets a fresh random
 * generation (PostRepository does both), and an index is built by reading the generation first and
 * the posts second. An index is used only while the stored generation is the one it was built
 * under, and a generation value is never written twice, so an index can miss no write that
 * finished before the request began.
 */
export class PostListIndex implements PostList {
  private readonly cache = new Map<string, Cached>();
  private readonly building = new Map<string, Promise<Cached>>();
  private size = 0;

  constructor(
    private readonly repo: PostRepository,
    private readonly maxEntries: number,
  ) {}

  async list(workspaceId: string, f: PostFilter, page: { skip: number; take: number }): Promise<{ items: PostRecord[]; total: number }> {
    const { entries } = await this.current(workspaceId);
    const matching = entries.filter(matcher(f));
    return { items: matching.slice(page.skip, page.skip + page.take).map((e) => e.post), total: matching.length };
  }

  private async current(workspaceId: string): Promise<Cached> {
    const generation = await this.repo.listGeneration(workspaceId);
    const cached = this.cache.get(workspaceId);
    if (cached && cached.generation === generation) {
      // Most recently used last, so eviction takes the least recently used workspace.
      this.cache.delete(workspaceId);
      this.cache.set(workspaceId, cached);
      return cached;
    }
    const key = `${workspaceId}\0${generation}`;
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.build(workspaceId, generation).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  private async build(workspaceId: string, generation: string | null): Promise<Cached> {
    const started = performance.now();
    const entries = await this.repo.listEntries(workspaceId);
    entries.sort((a, b) => b.sortAt - a.sortAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const built: Cached = { generation, entries };
    const previous = this.cache.get(workspaceId);
    if (previous) this.size -= previous.entries.length;
    this.cache.delete(workspaceId);
    this.cache.set(workspaceId, built);
    this.size += entries.length;
    for (const [ws, c] of this.cache) {
      if (this.size <= this.maxEntries || ws === workspaceId) break;
      this.cache.delete(ws);
      this.size -= c.entries.length;
    }
    log.debug('list index built', { posts: entries.length, durationMs: Math.round(performance.now() - started) });
    return built;
  }
}

function matcher(f: PostFilter): (e: ListEntry) => boolean {
  const stages = f.stages ? new Set<string>(f.stages) : null;
  const types = f.types ? new Set<string>(f.types) : null;
  const since = f.since?.getTime();
  const until = f.until?.getTime();
  const search = f.search?.toLowerCase();
  return (e) =>
    (stages ? stages.has(e.stage) : e.stage !== 'ARCHIVE') &&
    (!types || types.has(e.type)) &&
    (since === undefined || (e.publishAt !== null && e.publishAt >= since)) &&
    (until === undefined || (e.publishAt !== null && e.publishAt < until)) &&
    (!f.profileIds || e.profileIds.some((id) => f.profileIds!.includes(id))) &&
    (!f.labelIds || e.labelIds.some((id) => f.labelIds!.includes(id))) &&
    (!search || e.searchText.includes(search));
}
