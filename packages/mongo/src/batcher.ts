export interface BatcherOptions {
  /** Most items one run takes. */
  maxBatch: number;
  /** Runs under way at once; items arriving while all are busy wait and go together in the next. */
  maxInFlight: number;
  /**
   * Longest a run may take (none when unset). Two parts, as a run may make several commands: past
   * this the batcher fails the run's items with a BatchTimeoutError and frees its slot, whatever the
   * run awaits (a late answer is ignored); and the run passes it to its commands as the driver's
   * `timeoutMS`, so the driver closes a stalled connection instead of keeping it out of the pool
   * for good (FerretDB 1.24 accepts the `maxTimeMS` the driver then sends, as MongoDB does).
   */
  timeoutMs?: number;
}

/**
 * Group commit: one command at a time, and everything that arrived meanwhile goes in the next. Under
 * load, commands grow fuller instead of more numerous; with several slots a free one was usually
 * there, so items went out in twos and threes and the database's cost per command was paid for each
 * few writes (measured in the publish bench: 1.4 commands per publish with 2-4 slots, 0.4 with one).
 * A lone item still goes out at once.
 *
 * A run gets 30 s, far above any normal batched write (tens of ms), then its items fail. No command
 * has a timeout otherwise (none is configured for the driver), so one that hangs (a stalled
 * connection, a stuck server) would hold every later write of the batcher for good: a whole
 * publisher worker would stop publishing. Failing is safe for our callers: they take a failed
 * write as one whose outcome is unknown (the job is retried; the ledger's unique keys and the
 * compare-and-sets make a write done twice harmless).
 */
export const GROUP_COMMIT: Readonly<BatcherOptions> = { maxBatch: 100, maxInFlight: 1, timeoutMs: 30_000 };

/** What a run is given besides its items: the limit to pass to each of its commands, if any. */
export interface RunLimits {
  /** The driver's client-side operation timeout (CSOT); MongoDB and FerretDB 1.24 both accept it. */
  timeoutMS?: number;
}

/** The items of a run that took longer than its batcher's `timeoutMs`; whether it was stored is unknown. */
export class BatchTimeoutError extends Error {
  readonly code = 'BATCH_TIMEOUT';
  constructor(timeoutMs: number, items: number) {
    super(`batched write of ${items} items timed out: no answer within ${timeoutMs} ms; whether it was stored is unknown`);
    this.name = 'BatchTimeoutError';
  }
}

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/**
 * Group commit for database writes with a result per item: an item goes out at once when a run slot
 * is free, else it waits with the others that arrive meanwhile and they go out together, in one
 * command, as soon as a slot frees. Under light load nothing waits; under heavy load the commands
 * (and what each costs the database) grow fewer while the items per command grow.
 *
 * `run` gets the items (and the limits to pass to its commands) and answers one outcome per item, in
 * order: a value, or an Error for that item alone. A thrown error fails every item of the run, and
 * so does taking longer than `timeoutMs`.
 */
export class Batcher<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: I[], limits: RunLimits) => Promise<(O | Error)[]>,
    private readonly opts: BatcherOptions = GROUP_COMMIT,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.inFlight < this.opts.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.opts.maxBatch);
      this.inFlight += 1;
      void this.start(batch).finally(() => {
        this.inFlight -= 1;
        this.next();
      });
    }
  }

  private async start(batch: Waiting<I, O>[]): Promise<void> {
    const { timeoutMs } = this.opts;
    let timer: NodeJS.Timeout | undefined;
    try {
      const running = this.run(
        batch.map((w) => w.item),
        timeoutMs === undefined ? {} : { timeoutMS: timeoutMs },
      );
      // Past the limit the run is abandoned: its items fail now, and what it answers later (or
      // throws: hence the catch) is ignored.
      const out = await (timeoutMs === undefined
        ? running
        : Promise.race([
            running,
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new BatchTimeoutError(timeoutMs, batch.length)), timeoutMs);
              running.catch(() => undefined);
            }),
          ]));
      batch.forEach((w, i) => {
        const o = out[i];
        if (o instanceof Error) w.reject(o);
        else w.resolve(o as O);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      clearTimeout(timer);
    }
  }
}

export interface WriteError {
  index: number;
  code?: number;
  errmsg?: string;
}

/** The failed documents of a bulk write, by their index in it; null when `err` is no bulk write error. */
export function writeErrorsOf(err: unknown): Map<number, WriteError> | null {
  // The driver gives one write error or a list of them.
  const raw = (err as { writeErrors?: WriteError | WriteError[] } | null)?.writeErrors;
  if (raw === undefined || raw === null) return null;
  return new Map((Array.isArray(raw) ? raw : [raw]).map((w) => [w.index, w]));
}

/** What became of each document of an unordered insertMany. */
export type InsertOutcome = 'inserted' | 'duplicate' | Error;

interface InsertTarget {
  insertMany(docs: never[], options: { ordered: false } & RunLimits): Promise<unknown>;
}

/**
 * Inserts documents in one unordered command and says, per document, whether it was inserted or
 * its unique key was taken (MongoDB, and our FerretDB build, insert every other document and name
 * the failed ones by index). Any other failure of a document is its Error; a failure of the whole
 * command throws (a timeout among them, when `limits` set one).
 */
export async function insertEach(collection: InsertTarget, docs: object[], limits: RunLimits = {}): Promise<InsertOutcome[]> {
  const out: InsertOutcome[] = docs.map(() => 'inserted');
  try {
    await collection.insertMany(docs as never[], { ordered: false, ...limits });
  } catch (err) {
    const writeErrors = writeErrorsOf(err);
    if (!writeErrors || writeErrors.size === 0) throw err;
    for (const e of writeErrors.values()) {
      out[e.index] = e.code === 11000 ? 'duplicate' : new Error(e.errmsg ?? `insert failed (code ${e.code})`);
    }
  }
  return out;
}
