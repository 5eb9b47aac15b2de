import { createLogger, errorFields, setLogLevel, setServiceName } from '@social/logger';
import { startTracing } from '@social/telemetry';

export interface Stoppable {
  /** Stops taking work, drains in-flight work, closes connections. Must not call process.exit. */
  destroy(): Promise<void>;
}

/**
 * The `main` of every service and worker: start, then on SIGTERM/SIGINT destroy and let the process
 * end with 0. Start-up failures (bad config, unreachable infrastructure) exit 1 with the reason.
 */
export function runMain(serviceName: string, start: () => Promise<Stoppable>): void {
  setServiceName(serviceName);
  if (process.env['LOG_LEVEL']) setLogLevel(process.env['LOG_LEVEL']);
  const log = createLogger('main');
  // Before start(): spans of the start-up (and every request after it) need the provider in place.
  const tracing = startTracing(serviceName);
  if (tracing.enabled) log.info('tracing on (OpenTelemetry)');
  let running: Stoppable | undefined;
  let stopping = false;

  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('stopping', { signal });
    try {
      await running?.destroy();
      // After destroy: the spans of the drained work are exported too.
      await tracing.shutdown().catch((err) => log.warn('could not export the last spans', errorFields(err)));
      log.info('stopped cleanly');
      process.exitCode = 0;
    } catch (err) {
      log.error('error while stopping', errorFields(err));
      process.exitCode = 1;
    }
    // Anything still holding the event loop after destroy() is a leak; do not hang the pod for it.
    setTimeout(() => process.exit(), 1000).unref();
  };

  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  process.on('unhandledRejection', (reason) => {
    log.error('unhandled promise rejection', errorFields(reason));
  });

  // Through a promise, so a configuration error thrown at once is logged like any start-up failure.
  Promise.resolve()
    .then(start)
    .then((s) => {
      running = s;
      if (stopping) void s.destroy();
    })
    .catch((err) => {
      log.error(`failed to start: ${(err as Error).message}`, errorFields(err));
      process.exitCode = 1;
      setTimeout(() => process.exit(), 200).unref();
    });
}
