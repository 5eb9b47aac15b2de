import { Schema, type Connection, type Model } from 'mongoose';

/** 'YYYY-MM-DDTHH:MM' (UTC) of a time. */
export const minuteOf = (t: Date | number): string => new Date(t).toISOString().slice(0, 16);

const MINUTE = 60_000;
const floorMinute = (t: number) => Math.floor(t / MINUTE) * MINUTE;

/**
 * Keys are never written for a minute more than this far back (see `keyFor`), so a bucket older
 * than that which is empty stays empty and the cursor may pass it.
 */
const SETTLED_MS = 2 * MINUTE;

interface CursorDoc {
  _id: string;
  /** Start of the oldest minute that may still hold posts of this kind (ms since the epoch). */
  minute: number;
}
const cursorSchema = new Schema<CursorDoc>(
  { _id: { type: String, required: true }, minute: { type: Number, required: true } },
  { versionKey: false, collection: 'dispatch_cursors' },
);
const cursorModel = (conn: Connection) =>
  (conn.models['DispatchCursor'] as Model<CursorDoc> | undefined) ?? conn.model<CursorDoc>('DispatchCursor', cursorSchema);

/**
 * Posts to act on at a time, in minute buckets. Why: FerretDB pushes only equality filters down, so
 * "every post due by now" as a range would read every scheduled post of every workspace; as one
 * equality key per minute (`dispatchKey` = `<kind>:<minute>`, indexed) it reads only those due.
 *
 * Whatever their age: a cursor per kind, stored and shared by every replica, remembers the oldest
 * minute that may still hold a post, and moves past a minute only once it is empty and settled.
 * A scan reads every minute from the cursor on, so a post missed while the system was down, or
 * left behind by a failure, is found on the next scan, however long ago it was due.
 */
export class MinuteBuckets<D> {
  private cursor: number | null = null;

  constructor(
    private readonly posts: Model<D>,
    conn: Connection,
    private readonly kind: string,
    /** Where a first scan of an empty database starts (the cursor is stored from then on). */
    private readonly firstLookBackMs: number,
    private readonly cursors = cursorModel(conn),
  ) {}

  /**
   * The bucket key of a post to act on at `at`. A time more than a minute before `now` goes into the
   * current minute (it is due anyway), so buckets behind the cursor never receive a post.
   */
  keyFor(at: Date, now: Date): string {
    return `${this.kind}:${minuteOf(Math.max(at.getTime(), now.getTime() - MINUTE))}`;
  }

  /** The posts in every bucket from the cursor up to `upTo`'s minute (one equality query each). */
  async scan(upTo: Date, now: Date, projection?: Record<string, 1>): Promise<D[]> {
    const out: D[] = [];
    let minute = await this.start(now);
    for (; minute <= floorMinute(upTo.getTime()); minute += MINUTE) {
      const found = (await this.posts.find({ dispatchKey: `${this.kind}:${minuteOf(minute)}` }, projection).lean()) as D[];
      out.push(...found);
      if (found.length === 0 && minute === this.cursor && minute < now.getTime() - SETTLED_MS) await this.advance(minute + MINUTE);
    }
    return out;
  }

  private async start(now: Date): Promise<number> {
    if (this.cursor === null) {
      const first = floorMinute(now.getTime() - this.firstLookBackMs);
      const doc = await this.cursors
        .findOneAndUpdate({ _id: this.kind }, { $setOnInsert: { minute: first } }, { upsert: true, new: true })
        .lean<CursorDoc>();
      this.cursor = doc!.minute;
    }
    return this.cursor;
  }

  /** Moves the shared cursor from where this replica saw it; another replica may have moved it on. */
  private async advance(to: number): Promise<void> {
    const from = this.cursor!;
    const moved = await this.cursors.updateOne({ _id: this.kind, minute: from }, { $set: { minute: to } });
    if (moved.modifiedCount === 1) this.cursor = to;
    else this.cursor = Math.max(to, (await this.cursors.findById(this.kind).lean<CursorDoc>())?.minute ?? to);
  }
}
