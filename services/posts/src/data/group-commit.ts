/**
 * Runs `op(key)` for many concurrent callers with as few runs as correctness allows: a caller joins
 * the next run that *starts* after its call, never one already under way (that run may have read or
 * written before the caller's own change). So every caller's change is covered by a run that began
 * after it, and N callers arriving while a run is in flight share a single follow-up run.
 */
export class GroupCommit {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly queued = new Map<string, Promise<void>>();

  constructor(private readonly op: (key: string) => Promise<void>) {}

  run(key: string): Promise<void> {
    const queued = this.queued.get(key);
    if (queued) return queued;
    const current = this.inFlight.get(key);
    if (!current) return this.start(key);
    const next = current
      .catch(() => undefined)
      .then(() => {
        this.queued.delete(key);
        return this.start(key);
      });
    this.queued.set(key, next);
    return next;
  }

  private start(key: string): Promise<void> {
    const run: Promise<void> = this.op(key).finally(() => {
      if (this.inFlight.get(key) === run) this.inFlight.delete(key);
    });
    this.inFlight.set(key, run);
    return run;
  }
}
