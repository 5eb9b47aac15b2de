import type { ChannelModel } from 'amqplib';
import { createLogger } from '@social/logger';
import { BrokerConnection } from './connection';
import type { ConsumeOptions, ConsumerHandle, EventHandler } from './consume-types';
import { ConsumerSet } from './consumers';
import type { EnvelopeOf, EventDefinition, EventEnvelope } from './envelope';
import { ConfirmPublisher, type PublishOptions } from './publisher';
import type { Topology } from './topology';
import { settledWithin } from './wait';

// The facade keeps the package's public API in one place; the parts it is built from are not
// exported from the package, so they can change without touching any service.
export type { ConsumeContext, ConsumeOptions, ConsumerHandle, EventHandler, InvalidMessage } from './consume-types';
export type { PublishOptions } from './publisher';
export { brokerUnavailable } from './wait';

const log = createLogger('events');

export interface BrokerOptions {
  url: string;
  /** Shown by the management UI and `rabbitmqctl list_connections`, so ops can tell clients apart. */
  connectionName: string;
  topology?: Topology;
  heartbeatSeconds?: number;
  reconnect?: { initialMs?: number; maxMs?: number };
  /** How long connect() keeps trying before it fails (the broker may start after the service). */
  connectTimeoutMs?: number;
  /** How long publish() waits for a lost connection to come back before it rejects. */
  publishTimeoutMs?: number;
}

/**
 * One AMQP connection per process: a confirm channel for publishing, one channel per consumer (so a
 * channel error or a slow prefetch window of one consumer does not affect the others). When the
 * connection drops it reconnects with backoff, re-declares the topology and re-subscribes.
 *
 * Built from a BrokerConnection (connect, reconnect, topology), a ConfirmPublisher and a
 * ConsumerSet (whose deliveries delivery.ts and invalid-message.ts handle); the Broker wires them
 * together and orders close().
 */
export class Broker {
  private readonly connection: BrokerConnection;
  private readonly publisher: ConfirmPublisher;
  private readonly consumers: ConsumerSet;
  private closePromise?: Promise<void>;

  private constructor(options: BrokerOptions) {
    const topology = options.topology ?? { exchanges: [], queues: [] };
    this.connection = new BrokerConnection(
      {
        url: options.url,
        connectionName: options.connectionName,
        topology,
        heartbeatSeconds: options.heartbeatSeconds,
        backoff: { baseMs: options.reconnect?.initialMs ?? 500, maxMs: options.reconnect?.maxMs ?? 30000 },
        connectTimeoutMs: options.connectTimeoutMs,
      },
      { prepare: (conn) => this.prepare(conn), lost: () => this.publisher.lost() },
    );
    this.publisher = new ConfirmPublisher(this.connection, {
      topology,
      connectionName: options.connectionName,
      publishTimeoutMs: options.publishTimeoutMs,
    });
    this.consumers = new ConsumerSet(this.connection, topology);
  }

  static async connect(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(options);
    await broker.connection.connect();
    return broker;
  }

  isReady(): boolean {
    return !this.connection.closing && this.connection.current !== undefined && this.publisher.hasChannel;
  }

  /**
   * Resolves with the envelope once the broker has confirmed the message. While the connection is
   * down it waits for the reconnect (up to timeoutMs) and then rejects with BROKER_UNAVAILABLE.
   */
  publish<T>(def: EventDefinition<T>, payload: T, options: PublishOptions): Promise<EventEnvelope<T>> {
    return this.publisher.publish(def, payload, options);
  }

  /**
   * Delivers messages of `queue` to `handler` with manual acks: success acks; an invalid envelope or
   * a permanent error dead-letters; any other error requeues until the queue's delivery limit.
   */
  consume<D extends EventDefinition<unknown>>(
    queue: string,
    defs: readonly D[],
    handler: EventHandler<EnvelopeOf<D>>,
    options: ConsumeOptions = {},
  ): Promise<ConsumerHandle> {
    return this.consumers.consume(queue, defs, handler, options);
  }

  /**
   * Stops taking messages, lets running handlers finish (up to graceMs), waits for outstanding
   * publish confirms, then closes everything. No reconnection happens afterwards.
   */
  close(graceMs = 10000): Promise<void> {
    this.closePromise ??= this.shutdown(graceMs);
    return this.closePromise;
  }

  /** A new connection is up: its publish channel opens first, and only then do consumers subscribe. */
  private async prepare(conn: ChannelModel): Promise<() => void> {
    const channel = await this.publisher.open(conn);
    return () => {
      this.publisher.use(channel);
      this.consumers.resubscribeAll(conn);
    };
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.connection.beginClose();
    const deadline = Date.now() + graceMs;
    const inFlight = await this.consumers.stopAll();
    if (!(await settledWithin(inFlight, deadline))) {
      log.warn('handlers still running at close; their messages will be redelivered', { count: inFlight.length });
    }
    // Handlers that just finished may have published; wait for those confirms too.
    const pending = this.publisher.pendingPublishes;
    if (!(await settledWithin([...pending], deadline))) {
      log.warn('publishes still unconfirmed at close', { count: pending.size });
    }
    const conn = this.connection.detach();
    const publisher = this.publisher.detach();
    // Channels are closed (and their close awaited) before the connection: amqplib multiplexes
    // channel frames, so a connection close could otherwise overtake the last acks.
    await this.consumers.closeAll();
    await publisher?.close().catch(() => undefined);
    if (conn) await conn.close().catch(() => undefined);
    log.info('broker closed', { connectionName: this.connection.connectionName });
  }
}
