import type { Connection } from 'mongoose';
import { createLogger } from '@social/logger';
import type { PostRepository } from './post.repository';

const log = createLogger('posts:migration');

/** A dispatch task as releases before the dispatch state moved into the post kept it. */
interface LegacyTask {
  _id: string;
  workspaceId: string;
  postId: string;
  revision: number;
  dueAt: Date;
  state: 'WAITING' | 'CLAIMED' | 'DISPATCHED' | 'DONE' | 'CANCELLED';
  requestId?: string | null;
}

/**
 * Upgrades from releases that kept dispatch tasks in `publish_tasks`: the revision each open task
 * stands for gets its dispatch state on the post (waiting, or dispatched and watched from now on),
 * then the collection is dropped. Idempotent, and a no-op once the collection is gone; without it an
 * upgrade would leave scheduled posts that nothing dispatches.
 */
export async function migrateLegacyPublishTasks(conn: Connection, posts: PostRepository): Promise<number> {
  const present = await conn.db!.listCollections({ name: 'publish_tasks' }).toArray();
  if (present.length === 0) return 0;
  const tasks = conn.db!.collection<LegacyTask>('publish_tasks');
  const now = new Date();
  let moved = 0;
  for (const state of ['WAITING', 'CLAIMED', 'DISPATCHED'] as const) {
    for (const t of await tasks.find({ state }).toArray()) {
      const after = await posts.modify(t.workspaceId, t.postId, (p) =>
        p.revision !== t.revision || p.stage !== 'SCHEDULED' || p.dispatch
          ? null
          : {
              ...p,
              dispatch:
                state === 'DISPATCHED'
                  ? { state: 'DISPATCHED', dueAt: t.dueAt, requestId: t.requestId ?? null, checkAt: now, rounds: 0 }
                  : { state: 'WAITING', dueAt: t.dueAt, requestId: t.requestId ?? null, checkAt: null, rounds: 0 },
              version: p.version + 1,
            },
      );
      if (after?.dispatch) moved += 1;
    }
  }
  await tasks.drop();
  log.info('dispatch tasks moved into their posts', { moved });
  return moved;
}
