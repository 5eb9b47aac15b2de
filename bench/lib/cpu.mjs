// CPU seconds used by groups of processes between two snapshots, from /proc (Linux only): shows
// which process a benchmark is bound by. Processes that exit between snapshots are not counted.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function processes() {
  const out = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.push({ pid: Number(entry), cmdline, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** `groups`: name → (process) => boolean. Returns a snapshot to pass to `cpuSince`. */
export function cpuSnapshot(groups) {
  const totals = Object.fromEntries(Object.keys(groups).map((g) => [g, new Map()]));
  for (const p of processes()) {
    for (const [g, match] of Object.entries(groups)) if (match(p)) totals[g].set(p.pid, p.ticks);
  }
  return { at: Date.now(), totals };
}

/** CPU seconds per group since `snapshot` (processes seen in both), and the window in seconds. */
export function cpuSince(snapshot, groups) {
  const now = cpuSnapshot(groups);
  const seconds = {};
  for (const g of Object.keys(groups)) {
    let ticks = 0;
    for (const [pid, t] of now.totals[g]) ticks += t - (snapshot.totals[g].get(pid) ?? t);
    seconds[g] = ticks / TICKS_PER_SECOND;
  }
  return { window: (now.at - snapshot.at) / 1000, seconds };
}
