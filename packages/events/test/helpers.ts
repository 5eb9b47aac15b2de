import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import amqp, { type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { dlqName, type Topology } from '../src';

export const AMQP_URL = process.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';
export const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';

const run = promisify(execFile);

export const suffix = () => randomBytes(4).toString('hex');
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A topology of one topic exchange and one queue bound to `#`, named uniquely for this run. */
export function testTopology(name: string, deliveryLimit?: number): { topology: Topology; exchange: string; queue: string } {
  const id = `${name}.${suffix()}`;
  const exchange = `test.events.${id}`;
  const queue = `test.events.${id}.q`;
  return {
    exchange,
    queue,
    topology: {
      exchanges: [{ name: exchange, type: 'topic' }],
      queues: [{ name: queue, deliveryLimit, bindings: [{ exchange, routingKey: '#' }] }],
    },
  };
}

/** A plain amqplib connection the tests use to look at queues and to inject raw messages. */
export class Admin {
  private constructor(
    private readonly conn: ChannelModel,
    readonly ch: Channel,
  ) {}

  static async open(): Promise<Admin> {
    const conn = await amqp.connect(AMQP_URL);
    return new Admin(conn, await conn.createChannel());
  }

  /** The queue's consumer count, or undefined when it does not exist. */
  async consumers(queue: string): Promise<number | undefined> {
    // A passive check of a missing queue closes its channel, so it gets a channel of its own.
    const ch = await this.conn.createChannel();
    ch.on('error', () => undefined);
    try {
      return (await ch.checkQueue(queue)).consumerCount;
    } catch {
      return undefined;
    } finally {
      await ch.close().catch(() => undefined);
    }
  }

  async get(queue: string): Promise<GetMessage | false> {
    return this.ch.get(queue, { noAck: true });
  }

  /** Waits until `count` messages could be taken from the queue, and returns them. */
  async take(queue: string, count: number, timeoutMs = 15000): Promise<GetMessage[]> {
    const got: GetMessage[] = [];
    await waitFor(
      `${count} messages in ${queue}`,
      async () => {
        const msg = await this.get(queue);
        if (msg) got.push(msg);
        return got.length >= count;
      },
      timeoutMs,
    );
    return got;
  }

  async ready(queue: string): Promise<number> {
    return (await this.ch.checkQueue(queue)).messageCount;
  }

  async remove(topology: Topology): Promise<void> {
    for (const q of topology.queues) {
      await this.ch.deleteQueue(q.name);
      await this.ch.deleteQueue(dlqName(q.name));
    }
    for (const e of topology.exchanges) await this.ch.deleteExchange(e.name);
  }

  async close(): Promise<void> {
    await this.conn.close();
  }
}

interface ConnectionInfo {
  name: string;
  timeout: number;
  client_properties: [string, string, unknown][];
}

/** The broker-side connections whose client set this connection_name. */
export async function connectionsNamed(connectionName: string): Promise<ConnectionInfo[]> {
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'name', 'client_properties', 'timeout', '--formatter', 'json', '-q']);
  const all = JSON.parse(stdout) as ConnectionInfo[];
  return all.filter((c) => c.client_properties.some(([key, , value]) => key === 'connection_name' && value === connectionName));
}

/** What an operator does with `rabbitmqctl close_connection`: the broker drops the client. */
export async function forceClose(connectionName: string): Promise<void> {
  // close_connection wants the Erlang pid, which only the table output prints in the usable form.
  const { stdout } = await run('rabbitmqctl', ['list_connections', 'pid', 'client_properties', '-q']);
  const line = stdout.split('\n').find((l) => l.includes(`{"connection_name","${connectionName}"}`));
  if (!line) throw new Error(`no connection named ${connectionName}`);
  await run('rabbitmqctl', ['close_connection', line.split('\t')[0]!, 'closed by the events test']);
}

/** A TCP proxy in front of RabbitMQ that a test can cut, to make the broker unreachable. */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const target = new URL(AMQP_URL);
      const upstream = net.connect(Number(target.port || 5672), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  get url(): string {
    const u = new URL(AMQP_URL);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }
}
