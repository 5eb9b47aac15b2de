import { randomUUID } from 'node:crypto';
import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { AppError } from '@social/errors';
import { createLogger, errorFields } from '@social/logger';
import { queueMessagesPublished } from '@social/metrics';
import type { BrokerConnection } from './connection';
import { correlationIdFor } from './correlation';
import { createEnvelope, type EventDefinition, type EventEnvelope } from './envelope';
import { retryDelay, type RetryDelayOptions } from './retry-delay';
import { DEAD_LETTER_EXCHANGE, type Topology } from './topology';
import { inPublishSpan } from './tracing';
import { brokerUnavailable, sleep } from './wait';

const log = createLogger('events');

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

export interface PublisherOptions {
  topology: Topology;
  /** Sent as each message's appId. */
  connectionName: string;
  publishTimeoutMs?: number;
}

/** The publish channel went away before the broker confirmed; the message may be re-sent. */
class ChannelLostError extends Error {}

const PUBLISH_RETRY: RetryDelayOptions = { baseMs: 50, maxMs: 1000 };

/**
 * Publishing on one confirm channel per connection: a publish resolves only after the broker's
 * confirm, waits out a reconnect (up to its timeout), is re-sent when its channel died before the
 * confirm, and respects socket backpressure. Unroutable messages come back (`mandatory`) and reject.
 */
export class ConfirmPublisher {
  private channel?: ConfirmChannel;
  /** Ids of messages the broker returned as unroutable, per publish channel. */
  private readonly returnedIds = new WeakMap<ConfirmChannel, Set<string>>();
  private drain?: Promise<void>;
  private closed = false;
  private readonly readyWaiters = new Set<() => void>();
  private readonly pending = new Set<Promise<void>>();
  private readonly knownExchanges: Set<string>;

  constructor(
    private readonly connection: BrokerConnection,
    private readonly options: PublisherOptions,
  ) {
    this.knownExchanges = new Set(['', DEAD_LETTER_EXCHANGE, ...options.topology.exchanges.map((e) => e.name)]);
  }

  get hasChannel(): boolean {
    return this.channel !== undefined;
  }

  /** Publishes not yet settled (confirmed or failed); close() waits for them. */
  get pendingPublishes(): ReadonlySet<Promise<void>> {
    return this.pending;
  }

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
    this.pending.add(tracked);
    void tracked.then(() => this.pending.delete(tracked));
    task.then(
      () => queueMessagesPublished().inc({ exchange, type: def.type, outcome: 'confirmed' }),
      () => queueMessagesPublished().inc({ exchange, type: def.type, outcome: 'failed' }),
    );
    await task;
    return envelope;
  }

  /** Opens the confirm channel of a new connection; use() makes it the one publishes go to. */
  async open(conn: ChannelModel): Promise<ConfirmChannel> {
    const ch = await conn.createConfirmChannel();
    const returned = new Set<string>();
    ch.on('error', (err: unknown) => log.warn('publish channel error', errorFields(err)));
    // With `mandatory`, an unroutable message comes back (before its confirm) instead of vanishing.
    ch.on('return', (msg: ConsumeMessage) => {
      if (typeof msg.properties.messageId === 'string') returned.add(msg.properties.messageId);
    });
    ch.on('close', () => {
      if (this.channel !== ch) return;
      this.channel = undefined;
      // Deferred: when the whole connection died, its close event comes right after this one and
      // the reconnect takes over. Otherwise the broker closed only this channel (say, an exchange
      // was deleted under us): declare the topology again and reopen.
      setImmediate(() => {
        const connection = this.connection;
        if (connection.closing || connection.current !== conn) return;
        connection
          .declare(conn)
          .then(() => this.open(conn))
          .then((next) => (connection.current === conn && !connection.closing ? this.use(next) : next.close()))
          .catch((err) => log.error('cannot reopen the publish channel', errorFields(err)));
      });
    });
    this.returnedIds.set(ch, returned);
    return ch;
  }

  use(ch: ConfirmChannel): void {
    this.channel = ch;
    this.drain = undefined;
    for (const wake of [...this.readyWaiters]) wake();
  }

  /** The connection dropped: publishes wait for the reconnect's channel. */
  lost(): void {
    this.channel = undefined;
  }

  /** For good (close()): waiting publishes reject at once. Returns the channel for closing. */
  detach(): ConfirmChannel | undefined {
    const ch = this.channel;
    this.closed = true;
    this.channel = undefined;
    for (const wake of [...this.readyWaiters]) wake();
    return ch;
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
      const ch = await this.waitForChannel(deadline);
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
    while (this.drain && this.channel === ch) await this.drain;
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
        if (this.channel === ch) this.drain = undefined;
        resolve();
      };
      ch.on('drain', done);
      ch.on('close', done);
    });
  }

  private async waitForChannel(deadline: number): Promise<ConfirmChannel> {
    for (;;) {
      if (this.channel && !this.closed) return this.channel;
      if (this.connection.closing) throw brokerUnavailable('The broker client is closed.');
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
}
