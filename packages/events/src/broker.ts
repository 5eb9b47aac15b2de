import { randomUUID } from 'node:crypto';
import amqp, { type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { AppError, type ErrorDetail } from '@social/errors';
import { createLogger, errorFields, redactUrl, runWithContext } from '@social/logger';
import { queueMessagesConsumed, queueMessagesPublished } from '@social/metrics';
import { correlationIdFor } from './correlation';
import { createEnvelope, parseEnvelope, type EnvelopeOf, type EventDefinition, type EventEnvelope } from './envelope';
import { isPermanentError } from './permanent-error';
import { inConsumeSpan, inPublishSpan, markFailed } from './tracing';
import { retryDelay, type RetryDelayOptions } from './retry-delay';
import { DEAD_LETTER_EXCHANGE, DEFAULT_DELIVERY_LIMIT, declareTopology, type Topology } from './topology';

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

export interface PublishOptions {
  workspaceId: string | null;
  /** Defaults to the correlation id or request id of the current log context, else to the event's own id. */
  correlationId?: string;
  id?: string;
  /** Defaults to the event type. */
  routingKey?: string;
  /** Defaults to the exchange of the event definition. */
  exchange?: string;
  timeoutMs?: number;
  /** Per-message TTL: after it the queue dead-letters the message (delayed retries). */
  expirationMs?: number;
}

export interface ConsumeContext {
  queue: string;
  /** Earlier unsuccessful deliveries of this message (the quorum queue's x-delivery-count). */
  deliveryCount: number;
  deliveryLimit: number | undefined;
  /** When this attempt fails, the message is dead-lettered instead of redelivered. */
  isLastAttempt: boolean;
}

export type EventHandler<E extends EventEnvelope = EventEnvelope> = (envelope: E, ctx: ConsumeContext) => Promise<void> | void;

/** A message of the queue that is not a valid envelope of the expected types. */
export interface InvalidMessage {
  /** The body parsed as JSON, or undefined when it is not JSON at all. */
  data: unknown;
  reason: string;
  details: ErrorDetail[];
  messageId: string | undefined;
}

export interface ConsumeOptions {
  prefetch?: number;
  /**
   * Called before an invalid message is dead-lettered, so the consumer can settle whatever the
   * message still identifies. When it throws, the message is requeued (up to the delivery limit)
   * for another try instead.
   */
  onInvalid?: (message: InvalidMessage, ctx: ConsumeContext) => Promise<void>;
}

export interface ConsumerHandle {
  readonly queue: string;
  /** Stops new deliveries, waits for the handlers running now, then closes the channel. */
  cancel(): Promise<void>;
}

interface Consumer {
  queue: string;
  defs: Map<string, EventDefinition>;
  handler: EventHandler;
  onInvalid: ConsumeOptions['onInvalid'];
  prefetch: number;
  deliveryLimit: number | undefined;
  active: boolean;
  subscribing: boolean;
  channel?: Channel;
  tag?: string;
  inFlight: Set<Promise<void>>;
  retryAttempt: number;
  retryTimer?: NodeJS.Timeout;
}

/** The publish channel went away before the broker confirmed; the message may be re-sent. */
class ChannelLostError extends Error {}

const DEFAULT_PREFETCH = 10;
const PUBLISH_RETRY: RetryDelayOptions = { baseMs: 50, maxMs: 1000 };

export const brokerUnavailable = (message: string, cause?: unknown) =>
  new AppError('BROKER_UNAVAILABLE', 503, message, { cause, headers: { 'Retry-After': '1' } });

/**
 * One AMQP connection per process: a confirm channel for publishing, one channel per consumer (so a
 * channel error or a slow prefetch window of one consumer does not affect the others). When the
 * connection drops it reconnects with backoff, re-declares the topology and re-subscribes.
 */
export class Broker {
  private conn?: ChannelModel;
  private publisher?: ConfirmChannel;
  /** Ids of messages the broker returned as unroutable, per publish channel. */
  private readonly returnedIds = new WeakMap<ConfirmChannel, Set<string>>();
  private drain?: Promise<void>;
  private reconnecting = false;
  private closing = false;
  private closed = false;
  private closePromise?: Promise<void>;
  private wakeReconnect?: () => void;
  private readonly readyWaiters = new Set<() => void>();
  private readonly consumers = new Set<Consumer>();
  private readonly pendingPublishes = new Set<Promise<void>>();
  private readonly topology: Topology;
  private readonly knownExchanges: Set<string>;
  private readonly backoff: RetryDelayOptions;
  private readonly url: string;

  private constructor(private readonly options: BrokerOptions) {
    this.topology = options.topology ?? { exchanges: [], queues: [] };
    this.knownExchanges = new Set(['', DEAD_LETTER_EXCHANGE, ...this.topology.exchanges.map((e) => e.name)]);
    this.backoff = { baseMs: options.reconnect?.initialMs ?? 500, maxMs: options.reconnect?.maxMs ?? 30000 };
    this.url = withHeartbeat(options.url, options.heartbeatSeconds ?? 15);
  }

  static async connect(options: BrokerOptions): Promise<Broker> {
    const broker = new Broker(options);
    await broker.firstConnect();
    return broker;
  }

  isReady(): boolean {
    return !this.closing && this.conn !== undefined && this.publisher !== undefined;
  }

  /**
   * Resolves with the envelope once the broker has confirmed the message. While the connection is
   * down it waits for the reconnect (up to timeoutMs) and then rejects with BROKER_UNAVAILABLE.
   */
  async publish<T>(def: EventDefinition<T>, payload: T, options: PublishOptions): Promise<EventEnvelope<T>> {
    const exchange = options.exchange ?? def.exchange;
    if (exchange === undefined) {
      throw new AppError('EVENT_NO_EXCHANGE', 500, `No exchange given for event ${def.type}.`);
    }
    // Publishing to an undeclared exchange makes the broker close the whole publish channel, failing
    // every message in flight on it; refusing here keeps one bug from hurting other publishes.
    if (!this.knownExchanges.has(exchange)) {
      throw new AppError('EVENT_UNKNOWN_EXCHANGE', 500, `Exchange ${exchange} is not in the declared topology.`);
    }
    const id = options.id ?? randomUUID();
    const envelope = createEnvelope(def, payload, {
      id,
      workspaceId: options.workspaceId,
      correlationId: options.correlationId ?? correlationIdFor(id),
    });
    const routingKey = options.routingKey ?? def.type;
    const task = inPublishSpan({ type: def.type, exchange, routingKey, messageId: id, correlationId: envelope.correlationId }, (headers) =>
      this.send(exchange, routingKey, envelope, options.timeoutMs, options.expirationMs, headers),
    );
    const tracked = task.then(
      () => undefined,
      () => undefined,
    );
    this.pendingPublishes.add(tracked);
    void tracked.then(() => this.pendingPublishes.delete(tracked));
    task.then(
      () => queueMessagesPublished().inc({ exchange, type: def.type, outcome: 'confirmed' }),
      () => queueMessagesPublished().inc({ exchange, type: def.type, outcome: 'failed' }),
    );
    await task;
    return envelope;
  }

  /**
   * Delivers messages of `queue` to `handler` with manual acks: success acks; an invalid envelope or
   * a permanent error dead-letters; any other error requeues until the queue's delivery limit.
   */
  async consume<D extends EventDefinition<unknown>>(
    queue: string,
    defs: readonly D[],
    handler: EventHandler<EnvelopeOf<D>>,
    options: ConsumeOptions = {},
  ): Promise<ConsumerHandle> {
    if (this.closing) throw brokerUnavailable('The broker client is closed.');
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
    const conn = this.conn;
    if (conn) {
      try {
        await this.subscribe(consumer, conn);
      } catch (err) {
        // A lost connection is not the caller's fault: the reconnect will subscribe it.
        if (this.conn === conn) {
          await this.forget(consumer);
          throw err;
        }
      }
    }
    return { queue, cancel: () => this.cancelConsumer(consumer) };
  }

  /**
   * Stops taking messages, lets running handlers finish (up to graceMs), waits for outstanding
   * publish confirms, then closes everything. No reconnection happens afterwards.
   */
  close(graceMs = 10000): Promise<void> {
    this.closePromise ??= this.shutdown(graceMs);
    return this.closePromise;
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    const deadline = Date.now() + graceMs;
    this.wakeReconnect?.();
    const consumers = [...this.consumers];
    for (const c of consumers) {
      c.active = false;
      clearTimeout(c.retryTimer);
    }
    await Promise.all(consumers.map((c) => this.stopDeliveries(c)));
    const inFlight = consumers.flatMap((c) => [...c.inFlight]);
    if (!(await settledWithin(inFlight, deadline))) {
      log.warn('handlers still running at close; their messages will be redelivered', { count: inFlight.length });
    }
    // Handlers that just finished may have published; wait for those confirms too.
    if (!(await settledWithin([...this.pendingPublishes], deadline))) {
      log.warn('publishes still unconfirmed at close', { count: this.pendingPublishes.size });
    }
    const conn = this.conn;
    const publisher = this.publisher;
    this.closed = true;
    this.conn = undefined;
    this.publisher = undefined;
    for (const wake of [...this.readyWaiters]) wake();
    // Channels are closed (and their close awaited) before the connection: amqplib multiplexes
    // channel frames, so a connection close could otherwise overtake the last acks.
    await Promise.all(consumers.map((c) => this.forget(c)));
    await publisher?.close().catch(() => undefined);
    if (conn) await conn.close().catch(() => undefined);
    log.info('broker closed', { connectionName: this.options.connectionName });
  }

  private async firstConnect(): Promise<void> {
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
        await sleep(retryDelay(attempt, this.backoff));
      }
    }
  }

  private async establish(): Promise<void> {
    const conn = await amqp.connect(this.url, {
      clientProperties: { connection_name: this.options.connectionName },
    });
    conn.on('error', (err: unknown) => log.warn('broker connection error', errorFields(err)));
    conn.on('close', (err: unknown) => this.onConnectionClosed(conn, err));
    conn.on('blocked', (reason: unknown) => log.warn('broker blocked the connection (resource alarm)', { reason }));
    conn.on('unblocked', () => log.info('broker unblocked the connection'));
    let publisher: ConfirmChannel;
    try {
      await this.declare(conn);
      publisher = await this.openPublisher(conn);
    } catch (err) {
      await conn.close().catch(() => undefined);
      throw err;
    }
    if (this.closing) {
      await conn.close().catch(() => undefined);
      return;
    }
    this.conn = conn;
    this.setPublisher(publisher);
    for (const c of this.consumers) {
      clearTimeout(c.retryTimer);
      c.retryTimer = undefined;
      this.subscribe(c, conn).catch((err) => {
        log.warn('resubscribe failed', { queue: c.queue, ...errorFields(err) });
        this.scheduleResubscribe(c);
      });
    }
  }

  /** On a channel of its own: a failed declaration closes the channel it ran on. */
  private async declare(conn: ChannelModel): Promise<void> {
    const ch = await conn.createChannel();
    ch.on('error', () => undefined); // the failing declaration rejects; that is what gets reported
    await declareTopology(ch, this.topology);
    await ch.close();
  }

  private onConnectionClosed(conn: ChannelModel, err: unknown): void {
    if (this.conn !== conn) return; // a connection that never finished setting up, or after close()
    this.conn = undefined;
    this.publisher = undefined;
    if (this.closing) return;
    log.warn('broker disconnected', { connectionName: this.options.connectionName, ...errorFields(err ?? 'closed') });
    void this.reconnectLoop();
  }

  private async reconnectLoop(): Promise<void> {
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      for (let attempt = 1; !this.closing && !this.conn; attempt++) {
        const delayMs = retryDelay(attempt, this.backoff);
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
          if (this.conn) log.info('broker reconnected', { attempt, connectionName: this.options.connectionName });
        } catch (err) {
          log.warn('broker reconnect attempt failed', { attempt, ...errorFields(err) });
        }
      }
    } finally {
      this.reconnecting = false;
    }
  }

  private async openPublisher(conn: ChannelModel): Promise<ConfirmChannel> {
    const ch = await conn.createConfirmChannel();
    const returned = new Set<string>();
    ch.on('error', (err: unknown) => log.warn('publish channel error', errorFields(err)));
    // With `mandatory`, an unroutable message comes back (before its confirm) instead of vanishing.
    ch.on('return', (msg: ConsumeMessage) => {
      if (typeof msg.properties.messageId === 'string') returned.add(msg.properties.messageId);
    });
    ch.on('close', () => {
      if (this.publisher !== ch) return;
      this.publisher = undefined;
      // Deferred: when the whole connection died, its close event comes right after this one and
      // the reconnect takes over. Otherwise the broker closed only this channel (say, an exchange
      // was deleted under us): declare the topology again and reopen.
      setImmediate(() => {
        if (this.closing || this.conn !== conn) return;
        this.declare(conn)
          .then(() => this.openPublisher(conn))
          .then((next) => (this.conn === conn && !this.closing ? this.setPublisher(next) : next.close()))
          .catch((err) => log.error('cannot reopen the publish channel', errorFields(err)));
      });
    });
    this.returnedIds.set(ch, returned);
    return ch;
  }

  private setPublisher(ch: ConfirmChannel): void {
    this.publisher = ch;
    this.drain = undefined;
    for (const wake of [...this.readyWaiters]) wake();
  }

  private async send(
    exchange: string,
    routingKey: string,
    envelope: EventEnvelope,
    timeoutMs?: number,
    expirationMs?: number,
    headers: Record<string, string> = {},
  ): Promise<void> {
    const deadline = Date.now() + (timeoutMs ?? this.options.publishTimeoutMs ?? 10000);
    const body = Buffer.from(JSON.stringify(envelope));
    for (let attempt = 1; ; attempt++) {
      const ch = await this.waitForPublisher(deadline);
      try {
        await this.sendOnce(ch, exchange, routingKey, envelope, body, expirationMs, deadline, headers);
        return;
      } catch (err) {
        if (!(err instanceof ChannelLostError)) throw err;
        // Re-sending may duplicate a message the broker did get; consumers dedupe by envelope id.
        if (Date.now() >= deadline) throw brokerUnavailable('The message broker is not reachable.', err);
        log.warn('publish interrupted by a lost channel, retrying', { attempt, eventId: envelope.id });
        await sleep(Math.min(retryDelay(attempt, PUBLISH_RETRY), Math.max(0, deadline - Date.now())));
      }
    }
  }

  private async sendOnce(
    ch: ConfirmChannel,
    exchange: string,
    routingKey: string,
    envelope: EventEnvelope,
    body: Buffer,
    expirationMs: number | undefined,
    deadline: number,
    headers: Record<string, string>,
  ): Promise<void> {
    // Respect socket backpressure in bursts instead of buffering without bound.
    while (this.drain && this.publisher === ch) await this.drain;
    const returned = this.returnedIds.get(ch);
    return new Promise<void>((resolve, reject) => {
      // A broker that never confirms must not hold the caller forever: past the deadline the
      // publish counts as failed (the caller retries; consumers dedupe a copy that did arrive).
      const timer = setTimeout(
        () => reject(brokerUnavailable('The message broker did not confirm the message in time.')),
        Math.max(0, deadline - Date.now()),
      );
      const onConfirm = (err: unknown) => {
        clearTimeout(timer);
        if (err) {
          const nacked = (err as Error).message === 'message nacked';
          return reject(
            nacked ? brokerUnavailable('The message broker refused the message.', err) : new ChannelLostError((err as Error).message),
          );
        }
        if (returned?.delete(envelope.id)) {
          return reject(new AppError('EVENT_UNROUTABLE', 500, `No queue is bound for ${envelope.type} on ${exchange} (${routingKey}).`));
        }
        resolve();
      };
      let ok: boolean;
      try {
        ok = ch.publish(
          exchange,
          routingKey,
          body,
          {
            persistent: true,
            mandatory: true,
            contentType: 'application/json',
            messageId: envelope.id,
            type: envelope.type,
            correlationId: envelope.correlationId,
            timestamp: Math.floor(Date.parse(envelope.occurredAt) / 1000),
            appId: this.options.connectionName,
            headers,
            ...(expirationMs !== undefined ? { expiration: String(Math.max(0, Math.round(expirationMs))) } : {}),
          },
          onConfirm,
        );
      } catch (err) {
        clearTimeout(timer);
        return reject(new ChannelLostError((err as Error).message));
      }
      if (!ok) this.waitForDrain(ch);
    });
  }

  private waitForDrain(ch: ConfirmChannel): void {
    this.drain ??= new Promise<void>((resolve) => {
      const done = () => {
        ch.removeListener('drain', done);
        ch.removeListener('close', done);
        if (this.publisher === ch) this.drain = undefined;
        resolve();
      };
      ch.on('drain', done);
      ch.on('close', done);
    });
  }

  private async waitForPublisher(deadline: number): Promise<ConfirmChannel> {
    for (;;) {
      if (this.publisher && !this.closed) return this.publisher;
      if (this.closing) throw brokerUnavailable('The broker client is closed.');
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw brokerUnavailable('The message broker is not reachable.');
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.readyWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        this.readyWaiters.add(wake);
      });
    }
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
        if (c.active && !this.closing) this.scheduleResubscribe(c);
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
    if (c.retryTimer || !c.active || this.closing) return;
    c.retryAttempt += 1;
    const delayMs = retryDelay(c.retryAttempt, this.backoff);
    c.retryTimer = setTimeout(() => {
      c.retryTimer = undefined;
      // Without a live connection the reconnect subscribes every consumer itself.
      const conn = this.conn;
      if (!conn || !c.active || this.closing) return;
      // Declaring again brings back a queue that was deleted under the consumer.
      this.declare(conn)
        .then(() => this.subscribe(c, conn))
        .catch((err) => {
          log.warn('resubscribe failed', { queue: c.queue, attempt: c.retryAttempt, ...errorFields(err) });
          this.scheduleResubscribe(c);
        });
    }, delayMs);
    c.retryTimer.unref();
  }

  private track(c: Consumer, ch: Channel, msg: ConsumeMessage): void {
    const task = this.handle(c, ch, msg).finally(() => c.inFlight.delete(task));
    c.inFlight.add(task);
  }

  private async handle(c: Consumer, ch: Channel, msg: ConsumeMessage): Promise<void> {
    const deliveryCount = Number(msg.properties.headers?.['x-delivery-count'] ?? 0);
    const ctx: ConsumeContext = {
      queue: c.queue,
      deliveryCount,
      deliveryLimit: c.deliveryLimit,
      isLastAttempt: c.deliveryLimit !== undefined && deliveryCount >= c.deliveryLimit,
    };
    const parsed = parseEnvelope(msg.content, c.defs);
    if (!parsed.ok) return this.handleInvalid(c, ch, msg, parsed, ctx);
    const envelope = parsed.envelope;
    const logContext = {
      correlationId: envelope.correlationId,
      requestId: envelope.correlationId,
      workspaceId: envelope.workspaceId ?? undefined,
    };
    const message = {
      type: envelope.type,
      exchange: msg.fields.exchange,
      routingKey: msg.fields.routingKey,
      messageId: envelope.id,
      correlationId: envelope.correlationId,
      queue: c.queue,
    };
    await inConsumeSpan(msg.properties.headers, message, () =>
      runWithContext(logContext, async () => {
        const fields = { queue: c.queue, eventId: envelope.id, type: envelope.type, deliveryCount };
        try {
          await c.handler(envelope, ctx);
          settle(ch, msg, 'ack', c.queue);
        } catch (err) {
          markFailed(err);
          if (isPermanentError(err)) {
            log.error('handler failed permanently; dead-lettering', { ...fields, ...errorFields(err) });
            settle(ch, msg, 'dead-letter', c.queue);
          } else if (ctx.isLastAttempt) {
            log.error('handler failed on the last attempt; dead-lettering', { ...fields, ...errorFields(err) });
            settle(ch, msg, 'dead-letter', c.queue);
          } else {
            log.warn('handler failed; the message will be redelivered', { ...fields, ...errorFields(err) });
            settle(ch, msg, 'requeue', c.queue);
          }
        }
      }),
    );
  }

  private async handleInvalid(
    c: Consumer,
    ch: Channel,
    msg: ConsumeMessage,
    parsed: { reason: string; details: ErrorDetail[] },
    ctx: ConsumeContext,
  ): Promise<void> {
    const fields = { queue: c.queue, messageId: msg.properties.messageId, reason: parsed.reason, details: parsed.details };
    if (c.onInvalid) {
      let data: unknown;
      try {
        data = JSON.parse(msg.content.toString('utf8'));
      } catch {
        data = undefined;
      }
      try {
        await c.onInvalid({ data, reason: parsed.reason, details: parsed.details, messageId: msg.properties.messageId }, ctx);
      } catch (err) {
        if (!ctx.isLastAttempt) {
          log.warn('invalid message could not be settled; it will be redelivered', { ...fields, ...errorFields(err) });
          return settle(ch, msg, 'requeue', c.queue);
        }
        log.error('invalid message could not be settled on its last attempt', { ...fields, ...errorFields(err) });
      }
    }
    log.error('invalid message sent to the dead-letter queue', fields);
    settle(ch, msg, 'dead-letter', c.queue);
  }

  private async stopDeliveries(c: Consumer): Promise<void> {
    if (c.channel && c.tag) await c.channel.cancel(c.tag).catch(() => undefined);
  }

  private async cancelConsumer(c: Consumer): Promise<void> {
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

function settle(ch: Channel, msg: ConsumeMessage, how: 'ack' | 'requeue' | 'dead-letter', queue: string): void {
  try {
    if (how === 'ack') ch.ack(msg);
    else ch.nack(msg, false, how === 'requeue');
    queueMessagesConsumed().inc({ queue, outcome: how === 'dead-letter' ? 'dead_letter' : how });
  } catch (err) {
    // The channel closed under us; the broker redelivers unacked messages, so nothing is lost.
    log.warn('could not settle a message; it will be redelivered', { how, ...errorFields(err) });
  }
}

function withHeartbeat(url: string, seconds: number): string {
  const u = new URL(url);
  if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(seconds));
  return u.toString();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits for the promises or the deadline; true when all settled in time. */
async function settledWithin(promises: Promise<unknown>[], deadline: number): Promise<boolean> {
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
