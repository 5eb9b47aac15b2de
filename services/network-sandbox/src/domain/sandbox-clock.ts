/**
 * The sandbox's "now": real time plus an offset tests can set through the admin API, so a day-long
 * idempotency window can pass in a test without waiting for it. Everything that dates or ages
 * something in the network's world reads it (publishedAt, windows, listings, metrics).
 */
export class SandboxClock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  get offsetMs(): number {
    return this.offset;
  }

  setOffset(ms: number): void {
    this.offset = ms;
  }
}
