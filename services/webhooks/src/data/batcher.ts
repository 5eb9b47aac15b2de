/**
 * Gathers the calls made while earlier ones are being written into one database call: FerretDB
 * costs about a millisecond per command, while one command carrying many inserts or updates costs
 * a fraction of that per document. Calls made within one turn of the event loop start together
 * (no timer: an idle database gets each call at once); at most `maxConcurrent` batches of at most
 * `maxBatch` items are in flight, and what arrives meanwhile waits for the next free slot.
 */
export class Batcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private running = 0;
  private scheduled = false;

  /**
   * `run` answers one result per item, in order: a value, or an Error for that item alone; a
   * rejection fails every item of the batch.
   */
  constructor(
    private readonly run: (items: T[]) => Promise<(R | Error)[]>,
    private readonly opts: { maxBatch: number; maxConcurrent: number },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.pump();
        });
      }
    });
  }

  private pump(): void {
    while (this.running < this.opts.maxConcurrent && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.running++;
      Promise.resolve()
        .then(() => this.run(batch.map((b) => b.item)))
        .then(
          (results) =>
            batch.forEach((b, i) => {
              const r = results[i];
              if (r instanceof Error) b.reject(r);
              else b.resolve(r as R);
            }),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
