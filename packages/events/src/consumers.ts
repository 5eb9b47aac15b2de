import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import { createLogger, errorFields } from '@social/logger';
import type { BrokerConnection } from './connection';
import type { ConsumeOptions, ConsumerHandle, EventHandler } from './consume-types';
import { handleDelivery, type DeliveryTarget } from './delivery';
import type { EnvelopeOf, EventDefinition } from './envelope';
import { retryDelay } from './retry-delay';
import { DEFAULT_DELIVERY_LIMIT, type Topology } from './topology';
import { brokerUnavailable } from './wait';

const log = createLogger('events');

const DEFAULT_PREFETCH = 10;

interface Consumer extends DeliveryTarget {
  prefetch: number;
  active: boolean;
  subscribing: boolean;
  channel?: Channel;
  tag?: string;
  inFlight: Set<Promise<void>>;
  retryAttempt: number;
  retryTimer?: NodeJS.Timeout;
}

/**
 * The consumers of a Broker, one channel each (so a channel error or a slow prefetch window of one
 * consumer does not affect the others). A consumer outlives its channel: it is subscribed again on
 * every new connection, and with backoff when the broker closes only its channel.
 */
export class ConsumerSet {
  private readonly consumers = new Set<Consumer>();

  constructor(
    private readonly connection: BrokerConnection,
    private readonly topology: Topology,
  ) {}

  async consume<D extends EventDefinition<unknown>>(
    queue: string,
    defs: readonly D[],
    handler: EventHandler<EnvelopeOf<D>>,
    options: ConsumeOptions = {},
  ): Promise<ConsumerHandle> {
    if (this.connection.closing) throw brokerUnavailable('The broker client is closed.');
    const spec = this.topology.queues.find((q) => q.name === queue);
    const consumer: Consumer = {
      queue,
      defs: new Map(defs.map((d) => [d.type, d as EventDefinition])),
      handler: handler as EventHandler,
      onInvalid: options.onInvalid,
      prefetch: options.prefetch ?? spec?.prefetch ?? DEFAULT_PREFETCH,
      deliveryLimit: spec ? (spec.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT) : undefined,
      active: true,
      subscribing: false,
      inFlight: new Set(),
      retryAttempt: 0,
    };
    this.consumers.add(consumer);
    // While disconnected the consumer is only registered; the reconnect subscribes it.
    const conn = this.connection.current;
    if (conn) {
      try {
        await this.subscribe(consumer, conn);
      } catch (err) {
        // A lost connection is not the caller's fault: the reconnect will subscribe it.
        if (this.connection.current === conn) {
          await this.forget(consumer);
          throw err;
        }
      }
    }
    return { queue, cancel: () => this.cancel(consumer) };
  }

  /** A new connection is up: every consumer subscribes on it. */
  resubscribeAll(conn: ChannelModel): void {
    for (const c of this.consumers) {
      clearTimeout(c.retryTimer);
      c.retryTimer = undefined;
      this.subscribe(c, conn).catch((err) => {
        log.warn('resubscribe failed', { queue: c.queue, ...errorFields(err) });
        this.scheduleResubscribe(c);
      });
    }
  }

  /**
   * First half of close(): no consumer takes another message. Returns the handlers running now,
   * whose messages are settled on channels that stay open until closeAll().
   */
  async stopAll(): Promise<Promise<void>[]> {
    const consumers = [...this.consumers];
    for (const c of consumers) {
      c.active = false;
      clearTimeout(c.retryTimer);
    }
    await Promise.all(consumers.map((c) => this.stopDeliveries(c)));
    return consumers.flatMap((c) => [...c.inFlight]);
  }

  /** Second half of close(): the consumer channels, closed (and the closes awaited). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => this.forget(c)));
  }

  private async subscribe(c: Consumer, conn: ChannelModel): Promise<void> {
    if (c.channel || c.subscribing || !c.active) return;
    c.subscribing = true;
    try {
      const ch = await conn.createChannel();
      ch.on('error', (err: unknown) => log.warn('consumer channel error', { queue: c.queue, ...errorFields(err) }));
      ch.on('close', () => {
        if (c.channel !== ch) return;
        c.channel = undefined;
        c.tag = undefined;
        if (c.active && !this.connection.closing) this.scheduleResubscribe(c);
      });
      c.channel = ch;
      await ch.prefetch(c.prefetch);
      const { consumerTag } = await ch.consume(c.queue, (msg) => {
        if (msg) this.track(c, ch, msg);
        else {
          // The broker cancelled us (queue deleted or failed over); a fresh channel resubscribes.
          log.warn('consumer cancelled by the broker', { queue: c.queue });
          ch.close().catch(() => undefined);
        }
      });
      c.tag = consumerTag;
      c.retryAttempt = 0;
      log.info('consuming', { queue: c.queue, prefetch: c.prefetch });
    } finally {
      c.subscribing = false;
    }
  }

  /** A lone consumer channel closed while the connection lives on: subscribe again with backoff. */
  private scheduleResubscribe(c: Consumer): void {
    if (c.retryTimer || !c.active || this.connection.closing) return;
    c.retryAttempt += 1;
    const delayMs = retryDelay(c.retryAttempt, this.connection.backoff);
    c.retryTimer = setTimeout(() => {
      c.retryTimer = undefined;
      // Without a live connection the reconnect subscribes every consumer itself.
      const conn = this.connection.current;
      if (!conn || !c.active || this.connection.closing) return;
      // Declaring again brings back a queue that was deleted under the consumer.
      this.connection
        .declare(conn)
        .then(() => this.subscribe(c, conn))
        .catch((err) => {
          log.warn('resubscribe failed', { queue: c.queue, attempt: c.retryAttempt, ...errorFields(err) });
          this.scheduleResubscribe(c);
        });
    }, delayMs);
    c.retryTimer.unref();
  }

  /** close() waits for the handlers in flight, so each delivery's handling is kept until it ends. */
  private track(c: Consumer, ch: Channel, msg: ConsumeMessage): void {
    const task = handleDelivery(c, ch, msg).finally(() => c.inFlight.delete(task));
    c.inFlight.add(task);
  }

  private async stopDeliveries(c: Consumer): Promise<void> {
    if (c.channel && c.tag) await c.channel.cancel(c.tag).catch(() => undefined);
  }

  private async cancel(c: Consumer): Promise<void> {
    if (!c.active) return;
    c.active = false;
    clearTimeout(c.retryTimer);
    await this.stopDeliveries(c);
    await Promise.allSettled([...c.inFlight]);
    await this.forget(c);
  }

  private async forget(c: Consumer): Promise<void> {
    c.active = false;
    clearTimeout(c.retryTimer);
    this.consumers.delete(c);
    const ch = c.channel;
    c.channel = undefined;
    await ch?.close().catch(() => undefined);
  }
}
