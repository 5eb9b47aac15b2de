import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line of a unit of work carries: the request (or event) it belongs to. */
export interface LogContext {
  requestId?: string;
  correlationId?: string;
  workspaceId?: string;
}

const storage = new AsyncLocalStorage<LogContext>();

export function runWithContext<T>(ctx: LogContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...ctx }, fn);
}

export function getContext(): LogContext {
  return storage.getStore() ?? {};
}

/** Adds fields to the current context (for example the workspace once auth has run). */
export function setContext(fields: Partial<LogContext>): void {
  const store = storage.getStore();
  if (store) Object.assign(store, fields);
}
