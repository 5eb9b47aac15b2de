import { AppError, type AppErrorOptions } from '@social/errors';

export const PERMANENT = 'PERMANENT';

/**
 * Thrown by a handler when retrying cannot help (the event refers to something that will never
 * exist, a business rule rejects it): the message goes straight to the dead-letter queue.
 */
export class PermanentError extends AppError {
  constructor(message: string, options: AppErrorOptions = {}) {
    super(PERMANENT, 422, message, options);
  }
}

/** Marks any error (for example one from a library) as permanent without wrapping it. */
export function markPermanent<E extends object>(err: E): E {
  (err as { permanent?: boolean }).permanent = true;
  return err;
}

/** Codes are compared, not classes: the error may come from another copy of the errors package. */
export function isPermanentError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { permanent?: unknown; code?: unknown; isCatastrophic?: unknown };
  if (e.permanent === true) return true;
  return e.code === PERMANENT && e.isCatastrophic !== true;
}
