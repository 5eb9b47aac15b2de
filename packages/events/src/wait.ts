import { AppError } from '@social/errors';

/** 503 with Retry-After: the broker is down or the client is closing; the caller may try again shortly. */
export const brokerUnavailable = (message: string, cause?: unknown) =>
  new AppError('BROKER_UNAVAILABLE', 503, message, { cause, headers: { 'Retry-After': '1' } });

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for the promises or the deadline; true when all settled in time. */
export async function settledWithin(promises: Promise<unknown>[], deadline: number): Promise<boolean> {
  if (promises.length === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
  });
  const all = Promise.allSettled(promises).then(() => true as const);
  const result = await Promise.race([all, timeout]);
  clearTimeout(timer);
  return result;
}
