import fs from 'node:fs';

const MB = 1024 * 1024;

function status(pid: number): string {
  return fs.readFileSync(`/proc/${pid}/status`, 'utf8');
}

const field = (text: string, name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;

/** Resident set size of a process in bytes (Linux, /proc/<pid>/status). */
export function rssBytes(pid: number): number {
  return field(status(pid), 'VmRSS');
}

/**
 * The RSS of processes while they are idle: the median of `samples` readings `everyMs` apart, so
 * one collection or one late timer does not decide the baseline.
 */
export async function idleRss(pids: Record<string, number>, samples = 10, everyMs = 100): Promise<Record<string, number>> {
  const seen: Record<string, number[]> = Object.fromEntries(Object.keys(pids).map((k) => [k, []]));
  for (let i = 0; i < samples; i++) {
    for (const [name, pid] of Object.entries(pids)) seen[name]!.push(rssBytes(pid));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Object.fromEntries(Object.entries(seen).map(([k, xs]) => [k, xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!]));
}

/**
 * The peak RSS of processes between start() and stop(). The kernel's high-water mark (VmHWM) is
 * reset at start where allowed (/proc/<pid>/clear_refs), so a peak between two samples is not
 * missed; VmRSS is sampled every `everyMs` as well, which is all there is where the reset is refused.
 */
export class PeakRss {
  private readonly peaks: Record<string, number>;
  /** RSS of each process when the watch started. */
  readonly atStart: Record<string, number>;
  private readonly hwmReset: Record<string, boolean> = {};
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly pids: Record<string, number>,
    everyMs: number,
  ) {
    this.peaks = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
    this.atStart = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssBytes(pid)]));
    for (const [name, pid] of Object.entries(pids)) {
      try {
        fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
        this.hwmReset[name] = true;
      } catch {
        this.hwmReset[name] = false;
      }
    }
    this.timer = setInterval(() => this.sample(), everyMs);
    this.sample();
  }

  static start(pids: Record<string, number>, everyMs = 20): PeakRss {
    return new PeakRss(pids, everyMs);
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.pids)) {
      try {
        const text = status(pid);
        const hwm = this.hwmReset[name] ? field(text, 'VmHWM') : 0;
        this.peaks[name] = Math.max(this.peaks[name]!, field(text, 'VmRSS'), Number.isNaN(hwm) ? 0 : hwm);
      } catch {
        // the process is gone; its last reading stands
      }
    }
  }

  /** Peak RSS in bytes per process name. */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    return { ...this.peaks };
  }
}

export const toMB = (bytes: number) => Math.round(bytes / MB);
