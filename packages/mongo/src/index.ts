import mongoose, { Connection } from 'mongoose';
import { createLogger, errorFields, redactUrl } from '@social/logger';
import { mongoCommands } from '@social/metrics';

const log = createLogger('mongo');

export interface MongoOptions {
  url: string;
  dbName: string;
  /** Give up after this long; start-up then fails with a message saying what to check. */
  timeoutMs?: number;
}

/** Connections a process keeps to the database unless MONGO_URL says otherwise. */
export const DEFAULT_MAX_POOL_SIZE = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens a dedicated connection (one per service database; never the mongoose default) and retries
 * with backoff, because in compose and Kubernetes the database often comes up after the service.
 */
export async function connectMongo(opts: MongoOptions): Promise<Connection> {
  const deadline = Date.now() + (opts.timeoutMs ?? Number(process.env['MONGO_CONNECT_TIMEOUT_MS'] ?? 30000));
  let attempt = 0;
  for (;;) {
    attempt += 1;
    const conn = mongoose.createConnection(opts.url, {
      dbName: opts.dbName,
      serverSelectionTimeoutMS: Math.min(3000, opts.timeoutMs ?? Number(process.env['MONGO_CONNECT_TIMEOUT_MS'] ?? 3000)),
      // FerretDB and MongoDB both accept these; retryable writes need a replica set, so off.
      retryWrites: false,
      // At most this many operations of one process at once (maxPoolSize in MONGO_URL overrides):
      // FerretDB deadlocks when concurrent updates reach its PostgreSQL pool size (scripts/infra.sh).
      ...(/[?&]maxPoolSize=/i.test(opts.url) ? {} : { maxPoolSize: DEFAULT_MAX_POOL_SIZE }),
      autoIndex: true,
      autoCreate: true,
      // Feeds mongo_commands_total (countCommands): what each unit of work costs the database.
      monitorCommands: true,
    });
    try {
      await conn.asPromise();
      countCommands(conn, opts.dbName);
      log.info('mongo connected', { dbName: opts.dbName, attempt });
      return conn;
    } catch (err) {
      await conn.close(true).catch(() => undefined);
      if (Date.now() >= deadline) {
        throw new Error(
          `Cannot reach MongoDB at ${redactUrl(opts.url)} after ${attempt} attempts: ${(err as Error).message}. ` +
            'Start it with `pnpm infra` or set MONGO_URL.',
        );
      }
      log.warn('mongo not reachable yet, retrying', { attempt, ...errorFields(err) });
      await sleep(Math.min(250 * 2 ** (attempt - 1), 3000));
    }
  }
}

function countCommands(conn: Connection, db: string): void {
  const commands = mongoCommands();
  conn.getClient().on('commandStarted', (e) => commands.inc({ db, command: e.commandName }));
}

export async function closeMongo(conn: Connection | undefined): Promise<void> {
  if (conn) await conn.close();
}

/** Builds the indexes of every model of a connection, so the first request does not pay for it. */
export async function syncIndexes(conn: Connection): Promise<void> {
  for (const model of Object.values(conn.models)) await model.init();
}

export function isMongoReady(conn: Connection | undefined): boolean {
  return conn?.readyState === 1;
}

export { isDuplicateKeyError } from './duplicate-key';

/** Kept here for callers that import it from the database package; it lives in @social/logger. */
export { redactUrl };
export { MongoProcessedEventStore } from './processed-event.store';

export { mongoose };
export type { Connection };
export {
  Batcher,
  BatchTimeoutError,
  GROUP_COMMIT,
  insertEach,
  writeErrorsOf,
  type BatcherOptions,
  type InsertOutcome,
  type RunLimits,
  type WriteError,
} from './batcher';
