import amqp, { type ChannelModel } from 'amqplib';
import { createLogger, errorFields, redactUrl } from '@social/logger';
import { retryDelay, type RetryDelayOptions } from './retry-delay';
import { declareTopology, type Topology } from './topology';
import { brokerUnavailable, sleep } from './wait';

const log = createLogger('events');

export interface ConnectionOptions {
  url: string;
  connectionName: string;
  topology: Topology;
  heartbeatSeconds?: number;
  /** Between reconnect attempts, and between resubscribes of a lone consumer (ConsumerSet). */
  backoff: RetryDelayOptions;
  connectTimeoutMs?: number;
}

/** What lives on the connection: told when a new one is up and when the current one is gone. */
export interface ConnectionSession {
  /**
   * Opens what must exist before the connection counts as up (the publish channel) and returns
   * the step that puts it to use. That step runs only once the connection is the current one, so
   * a connection that fails half-way, or one that comes up while closing, is never seen by anyone.
   */
  prepare(conn: ChannelModel): Promise<() => void>;
  /** The current connection dropped; the reconnect is already under way. */
  lost(): void;
}

/**
 * The one AMQP connection of a Broker and its lifecycle: the first connect (the broker may start
 * after the service), the topology declared on every new connection, and the reconnect loop with
 * backoff after a drop. It owns `closing`, because every part must stop reviving things once
 * close() has begun.
 */
export class BrokerConnection {
  /** The live connection, set only once its topology is declared and its session prepared. */
  current?: ChannelModel;
  closing = false;
  private reconnecting = false;
  private wakeReconnect?: () => void;
  private readonly url: string;

  constructor(
    private readonly options: ConnectionOptions,
    private readonly session: ConnectionSession,
  ) {
    this.url = withHeartbeat(options.url, options.heartbeatSeconds ?? 15);
  }

  get backoff(): RetryDelayOptions {
    return this.options.backoff;
  }

  get connectionName(): string {
    return this.options.connectionName;
  }

  async connect(): Promise<void> {
    const deadline = Date.now() + (this.options.connectTimeoutMs ?? 30000);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.establish();
        log.info('broker connected', { url: redactUrl(this.options.url), connectionName: this.options.connectionName });
        return;
      } catch (err) {
        // 406 PRECONDITION_FAILED: a queue exists with other arguments; retrying cannot fix that.
        if ((err as { code?: unknown }).code === 406) throw err;
        if (Date.now() >= deadline) {
          throw brokerUnavailable(
            `Cannot reach RabbitMQ at ${redactUrl(this.options.url)} after ${attempt} attempts: ${(err as Error).message}`,
            err,
          );
        }
        log.warn('broker not reachable yet, retrying', { attempt, ...errorFields(err) });
        await sleep(retryDelay(attempt, this.options.backoff));
      }
    }
  }

  /** No reconnect from now on; a reconnect loop sleeping between attempts wakes up and ends. */
  beginClose(): void {
    this.closing = true;
    this.wakeReconnect?.();
  }

  /** Forgets the current connection (its close event is ignored then) and hands it over for closing. */
  detach(): ChannelModel | undefined {
    const conn = this.current;
    this.current = undefined;
    return conn;
  }

  /** On a channel of its own: a failed declaration closes the channel it ran on. */
  async declare(conn: ChannelModel): Promise<void> {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined); // the failing declaration rejects; that is what gets reported
    await declareTopology(ch, this.options.topology);
    await ch.close();
  }

  private async establish(): Promise<void> {
    const conn = await amqp.connect(this.url, {
      clientProperties: { connection_name: this.options.connectionName },
    });
    conn.on('error', (err: unknown) => log.warn('broker connection error', errorFields(err)));
    conn.on('close', (err: unknown) => this.onClosed(conn, err));
    conn.on('blocked', (reason: unknown) => log.warn('broker blocked the connection (resource alarm)', { reason }));
    conn.on('unblocked', () => log.info('broker unblocked the connection'));
    let attach: () => void;
    try {
      await this.declare(conn);
      attach = await this.session.prepare(conn);
    } catch (err) {
      await conn.close().catch(() => undefined);
      throw err;
    }
    if (this.closing) {
      await conn.close().catch(() => undefined);
      return;
    }
    this.current = conn;
    attach();
  }

  private onClosed(conn: ChannelModel, err: unknown): void {
    if (this.current !== conn) return; // a connection that never finished setting up, or after close()
    this.current = undefined;
    this.session.lost();
    if (this.closing) return;
    log.warn('broker disconnected', { connectionName: this.options.connectionName, ...errorFields(err ?? 'closed') });
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      for (let attempt = 1; !this.closing && !this.current; attempt++) {
        const delayMs = retryDelay(attempt, this.options.backoff);
        log.info('broker reconnecting', { attempt, delayMs });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          this.wakeReconnect = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeReconnect = undefined;
        if (this.closing) break;
        try {
          await this.establish();
          if (this.current) log.info('broker reconnected', { attempt, connectionName: this.options.connectionName });
        } catch (err) {
          log.warn('broker reconnect attempt failed', { attempt, ...errorFields(err) });
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }
}

function withHeartbeat(url: string, seconds: number): string {
  const u = new URL(url);
  if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(seconds));
  return u.toString();
}
