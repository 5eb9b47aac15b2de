import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, sleep } from './test-env';

const run = promisify(execFile);

/** The Debian package's real scripts; /usr/sbin/rabbitmq-* would switch to the rabbitmq user. */
const RABBITMQ_BIN = process.env['RABBITMQ_BIN_DIR'] ?? '/usr/lib/rabbitmq/bin';

export interface PrivateRabbitRestart {
  /** From the stop request until the node was gone. */
  stopMs: number;
  /** From the start until the node accepted AMQP connections again. */
  startMs: number;
}

export interface PrivateRabbit {
  readonly nodeName: string;
  /** AMQP_URL of the node's default vhost (guest/guest on 127.0.0.1). */
  readonly amqpUrl: string;
  /**
   * A real broker restart: the node is stopped (`rabbitmqctl stop`: the Erlang VM exits), stays
   * down `downMs`, then a new node process starts on the same data directory and port. Every client
   * connection drops; durable queues and their messages come back from disk.
   * Not a SIGKILL: RabbitMQ 3.10 can leave a single-node quorum queue without a leader for good
   * when killed shortly after the queue was declared (rabbitmq-server#10070), a broker bug that
   * would fail tests for reasons of its own.
   */
  restart(options?: { downMs?: number }): Promise<PrivateRabbitRestart>;
  /** rabbitmqctl against this node (e.g. `list_queues name messages`); resolves with its stdout. */
  ctl(...args: string[]): Promise<string>;
  /** Stops the node and removes its directories. */
  destroy(): Promise<void>;
}

/**
 * A RabbitMQ node of its own for one test file, from the locally installed rabbitmq-server (the
 * machines that run scripts/infra.sh): its own node name, ports, data and log directories and
 * Erlang cookie, no plugins. Meant for what a shared broker must never see, a restart. On the
 * 2-core development machine a fresh node is up in 5-7 s, and a restart takes 5-8 s (stop about
 * 1.5 s, start 3.5-6.5 s, depending on the load).
 */
export async function startPrivateRabbit(options: { startTimeoutMs?: number } = {}): Promise<PrivateRabbit> {
  if (!fs.existsSync(path.join(RABBITMQ_BIN, 'rabbitmq-server'))) {
    throw new Error(`startPrivateRabbit needs a local rabbitmq-server install (${RABBITMQ_BIN}; set RABBITMQ_BIN_DIR)`);
  }
  const startTimeoutMs = options.startTimeoutMs ?? 60000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rabbit-test-${process.pid}-`));
  const nodeName = `rabbit-test-${process.pid}-${randomBytes(3).toString('hex')}@localhost`;
  const port = await freePort();
  const distPort = await freePort();
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  // A cookie of its own (the CLI finds it through HOME), so nothing of the shared node is read.
  fs.writeFileSync(path.join(home, '.erlang.cookie'), randomBytes(16).toString('hex').toUpperCase(), { mode: 0o400 });
  fs.writeFileSync(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${port}\n`);
  fs.writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
  // Replaces /etc/rabbitmq/rabbitmq-env.conf, which names the shared node.
  fs.writeFileSync(path.join(dir, 'rabbitmq-env.conf'), 'ERL_EPMD_ADDRESS=127.0.0.1\n');
  const pidFile = path.join(dir, 'rabbit.pid');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(port),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
    RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
    RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(dir, 'log'),
    RABBITMQ_PLUGINS_EXPAND_DIR: path.join(dir, 'plugins-expand'),
    RABBITMQ_PID_FILE: pidFile,
    ERL_EPMD_ADDRESS: '127.0.0.1',
  };
  const ctl = async (...args: string[]) =>
    (await run(path.join(RABBITMQ_BIN, 'rabbitmqctl'), ['-q', '-n', nodeName, ...args], { env, timeout: 60000 })).stdout;

  let server: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const beamPid = (): number | null => {
    try {
      return Number(fs.readFileSync(pidFile, 'utf8').trim()) || null;
    } catch {
      return null;
    }
  };
  // If the test process ends without destroy() (a crash, a timeout), the node must not outlive it.
  const killOnExit = () => {
    const pid = beamPid();
    if (pid && server && server.exitCode === null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', killOnExit);

  const start = async (): Promise<number> => {
    const began = Date.now();
    fs.rmSync(pidFile, { force: true });
    const out = fs.openSync(path.join(dir, 'server.out'), 'a');
    const child = spawn(path.join(RABBITMQ_BIN, 'rabbitmq-server'), [], { env, stdio: ['ignore', out, out] });
    fs.closeSync(out);
    server = child;
    exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = began + startTimeoutMs;
    while (!(await accepts(port))) {
      if (child.exitCode !== null) throw new Error(`RabbitMQ node ${nodeName} exited with ${child.exitCode}:\n${tail(dir)}`);
      if (Date.now() > deadline) throw new Error(`RabbitMQ node ${nodeName} not up within ${startTimeoutMs} ms:\n${tail(dir)}`);
      await sleep(100);
    }
    await ctl('await_startup', '--timeout', String(Math.ceil(startTimeoutMs / 1000)));
    return Date.now() - began;
  };

  const stop = async (kill = false): Promise<number> => {
    const began = Date.now();
    if (!server || server.exitCode !== null) return 0;
    const pid = beamPid();
    if (kill && pid) process.kill(pid, 'SIGKILL');
    else await ctl('stop', pidFile); // waits until the Erlang VM has exited
    await exited; // the start script ends with its VM
    return Date.now() - began;
  };

  try {
    await start();
  } catch (err) {
    await stop(true).catch(() => undefined);
    process.off('exit', killOnExit);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  return {
    nodeName,
    amqpUrl: `amqp://guest:guest@127.0.0.1:${port}`,
    async restart({ downMs = 0 } = {}) {
      const stopMs = await stop();
      if (downMs > 0) await sleep(downMs);
      const startMs = await start();
      return { stopMs, startMs };
    },
    ctl,
    async destroy() {
      try {
        await stop();
      } catch {
        await stop(true).catch(() => undefined);
      }
      process.off('exit', killOnExit);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function tail(dir: string): string {
  const read = (f: string) => {
    try {
      return fs.readFileSync(f, 'utf8').split('\n').slice(-20).join('\n');
    } catch {
      return '';
    }
  };
  return read(path.join(dir, 'server.out'));
}
