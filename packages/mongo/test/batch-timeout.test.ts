import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Batcher, closeMongo, connectMongo, insertEach, type Connection } from '../src';

// Against the real server of the test run (FerretDB here, MongoDB elsewhere), through a proxy.
const MONGO_URL = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27017/';

/**
 * A TCP proxy to the server whose `stall()` stops passing the server's answers on the connections
 * open at that moment (the client's requests still reach the server): a command sent on one of
 * them never gets its answer, as on a stalled connection. Connections opened later pass.
 */
async function stallingProxy(target: URL) {
  const pairs = new Set<{ client: net.Socket; server: net.Socket; stalled: boolean }>();
  const proxy = net.createServer((client) => {
    const server = net.connect(Number(target.port || 27017), target.hostname);
    const pair = { client, server, stalled: false };
    pairs.add(pair);
    client.on('data', (b) => server.write(b));
    server.on('data', (b) => {
      if (!pair.stalled) client.write(b);
    });
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      server.destroy();
    };
    for (const s of [client, server]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as net.AddressInfo;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${port}`;
  // One connection for operations, so a later command can only succeed on a connection the driver
  // opened after giving up the stalled one; direct, so the driver never bypasses the proxy.
  url.searchParams.set('maxPoolSize', '1');
  url.searchParams.set('directConnection', 'true');
  return {
    url: url.href,
    stall: () => pairs.forEach((p) => (p.stalled = true)),
    close: async () => {
      pairs.forEach((p) => p.client.destroy());
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

type Doc = { _id: string };

let proxy: Awaited<ReturnType<typeof stallingProxy>>;
let proxied: Connection;
let direct: Connection;

beforeAll(async () => {
  const dbName = `mongo_timeout_${randomBytes(4).toString('hex')}`;
  proxy = await stallingProxy(new URL(MONGO_URL));
  proxied = await connectMongo({ url: proxy.url, dbName });
  direct = await connectMongo({ url: MONGO_URL, dbName });
});

afterAll(async () => {
  await direct?.dropDatabase();
  await closeMongo(direct);
  await proxied?.close(true);
  await proxy?.close();
});

/** A stalled connection in the pool: a write has gone through it, then its answers stop. */
async function stalledCollection(name: string) {
  const col = proxied.collection<Doc>(name);
  await col.insertOne({ _id: 'before' });
  proxy.stall();
  return col;
}

describe('a write whose answer never comes', () => {
  it('times out with the driver timeoutMS, and the next write goes through on a new connection', async () => {
    const col = await stalledCollection('driver');

    const started = Date.now();
    const err = await insertEach(col, [{ _id: 'stalled' }], { timeoutMS: 1000 }).catch((e: unknown) => e);
    // The driver's MongoOperationTimeoutError, in the bulk write error that insertMany throws.
    expect((err as Error).message).toMatch(/timed out/i);
    expect(Date.now() - started).toBeLessThan(5000);

    expect(await insertEach(col, [{ _id: 'after' }], { timeoutMS: 5000 })).toEqual(['inserted']);
    expect(await direct.collection<Doc>('driver').findOne({ _id: 'after' })).toEqual({ _id: 'after' });
  });

  it('fails the items of a batched write with a timeout, and the batcher sends the next ones', async () => {
    const col = await stalledCollection('batched');
    const batcher = new Batcher((docs: Doc[], limits) => insertEach(col, docs, limits), {
      maxBatch: 100,
      maxInFlight: 1,
      timeoutMs: 1000,
    });

    const hung = batcher.push({ _id: 'stalled' }).catch((e: unknown) => e);
    const next = [batcher.push({ _id: 'next-1' }), batcher.push({ _id: 'next-2' })];
    // The batcher's BatchTimeoutError or the driver's, whichever of the two equal limits ends first.
    expect(((await hung) as Error).message).toMatch(/timed out/i);
    expect(await Promise.all(next)).toEqual(['inserted', 'inserted']);
    expect(await batcher.push({ _id: 'later' })).toBe('inserted');

    const stored = await direct
      .collection<Doc>('batched')
      .find({ _id: { $in: ['next-1', 'next-2', 'later'] } })
      .toArray();
    expect(stored.map((d) => d._id).sort()).toEqual(['later', 'next-1', 'next-2']);
  });
});
