/**
 * cyrb53: a fast, well-mixed 53-bit string hash. Every "random" value of the sandbox comes from
 * it, so the same seed and inputs give the same accounts, posts and metrics on every machine.
 */
export function hash53(str: string, salt = 0): number {
  let h1 = 0xdeadbeef ^ salt;
  let h2 = 0x41c6ce57 ^ salt;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** A deterministic number in [0, 1) for the given parts. */
export function unit(...parts: (string | number)[]): number {
  return hash53(parts.join('|')) / 2 ** 53;
}

/** Deterministic pick from a list. */
export function pick<T>(items: readonly T[], ...parts: (string | number)[]): T {
  return items[Math.floor(unit(...parts) * items.length)]!;
}

/** A deterministic value spread log-uniformly between min and max (sizes of audiences vary by orders of magnitude). */
export function logUniform(min: number, max: number, ...parts: (string | number)[]): number {
  return Math.exp(Math.log(min) + unit(...parts) * (Math.log(max) - Math.log(min)));
}
