export interface BatcherOptions {
  /** Most items one run takes. */
  maxBatch: number;
  /** Runs under way at once; items arriving while all are busy wait and go together in the next. */
  maxInFlight: number;
}

/**
 * Group commit: one command at a time, and everything that arrived meanwhile goes in the next. Under
 * load, commands grow fuller instead of more numerous; with several slots a free one was usually
 * there, so items went out in twos and threes and the database's cost per command was paid for each
 * few writes (measured in the publish bench: 1.4 commands per publish with 2-4 slots, 0.4 with one).
 * A lone item still goes out at once.
 */
export const GROUP_COMMIT: Readonly<BatcherOptions> = { maxBatch: 100, maxInFlight: 1 };

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
 * `run` gets the items and answers one outcome per item, in order: a value, or an Error for that
 * item alone. A thrown error fails every item of the run.
 */
export class Batcher<I, O> {
  private readonly waiting: Waiting<I, O>[] = [];
  private inFlight = 0;

  constructor(
    private readonly run: (items: I[]) => Promise<(O | Error)[]>,
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
    try {
      const out = await this.run(batch.map((w) => w.item));
      batch.forEach((w, i) => {
        const o = out[i];
        if (o instanceof Error) w.reject(o);
        else w.resolve(o as O);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
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
  insertMany(docs: never[], options: { ordered: false }): Promise<unknown>;
}

/**
 * Inserts documents in one unordered command and says, per document, whether it was inserted or
 * its unique key was taken (MongoDB, and our FerretDB build, insert every other document and name
 * the failed ones by index). Any other failure of a document is its Error; a failure of the whole
 * command throws.
 */
export async function insertEach(collection: InsertTarget, docs: object[]): Promise<InsertOutcome[]> {
  const out: InsertOutcome[] = docs.map(() => 'inserted');
  try {
    await collection.insertMany(docs as never[], { ordered: false });
  } catch (err) {
    const writeErrors = writeErrorsOf(err);
    if (!writeErrors || writeErrors.size === 0) throw err;
    for (const e of writeErrors.values()) {
      out[e.index] = e.code === 11000 ? 'duplicate' : new Error(e.errmsg ?? `insert failed (code ${e.code})`);
    }
  }
  return out;
}
