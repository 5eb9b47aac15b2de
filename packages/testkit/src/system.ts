import { spawn, execFile, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { createTestVhost, type TestVhost } from './rabbit';
import { dropDatabases, freePort, sleep, testEnv } from './test-env';
import { issuerOfProcess } from './test-keys';

const READY_WITHIN_MS = 90_000;

const ROOT = path.resolve(__dirname, '../../..');
const run = promisify(execFile);

interface ProcessSpec {
  name: string;
  entry: string;
  portEnv: string;
  port: number;
  urlEnv?: string;
  grpc?: { portEnv: string; port: number; urlEnv: string };
}

const SPECS: ProcessSpec[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'system.json'), 'utf8')).processes;

/**
 * The whole system as separate processes on free ports with its own databases, for end-to-end
 * tests: the same built entry points `pnpm start` runs.
 */
export class TestSystem {
  private readonly children = new Map<string, ChildProcess>();
  private readonly logs = new Map<string, string[]>();

  private constructor(
    readonly env: Record<string, string>,
    private readonly ports: Map<string, number>,
    private readonly vhost: TestVhost | undefined,
  ) {}

  static async start(overrides: Record<string, string> = {}, only?: string[]): Promise<TestSystem> {
    // Processes log at info (kept in memory, shown on failure) so tests can follow a request id.
    // The media files of this system (MEDIA_STORE=fs): a directory of its own, removed at the end.
    const mediaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'e2e-media-'));
    const env = testEnv({ LOG_LEVEL: 'info', MEDIA_DATA_DIR: mediaDir, ...overrides });
    // A vhost of its own: queues have fixed names, so two systems on one broker would take each
    // other's jobs (another e2e file's, or those of `pnpm start`).
    const vhost = overrides['AMQP_URL'] ? undefined : await createTestVhost(env['AMQP_URL']!);
    if (vhost) env['AMQP_URL'] = vhost.amqpUrl;
    const ports = new Map<string, number>();
    const specs = SPECS.filter((s) => !only || only.includes(s.name));
    for (const s of specs) {
      const port = await freePort();
      ports.set(s.name, port);
      env[s.portEnv] = String(port);
      if (s.urlEnv) env[s.urlEnv] = `http://127.0.0.1:${port}`;
      if (s.grpc) {
        const grpcPort = await freePort();
        env[s.grpc.portEnv] = String(grpcPort);
        env[s.grpc.urlEnv] = `127.0.0.1:${grpcPort}`;
      }
    }
    Object.assign(env, overrides, vhost ? { AMQP_URL: vhost.amqpUrl } : {});
    const system = new TestSystem(env, ports, vhost);
    try {
      for (const s of specs) await system.startProcess(s.name);
    } catch (err) {
      // Otherwise the processes already started outlive the failed start and keep the caller alive.
      await system.destroy().catch(() => undefined);
      throw err;
    }
    return system;
  }

  get gatewayUrl(): string {
    return this.url('gateway');
  }

  url(name: string): string {
    return `http://127.0.0.1:${this.ports.get(name)}`;
  }

  /**
   * Another instance of a process (a second posts replica, say) on ports of its own, with the same
   * databases and broker; known afterwards by `as` (url(), logOf(), stopProcess()).
   */
  async startReplica(name: string, as: string): Promise<void> {
    const spec = SPECS.find((s) => s.name === name)!;
    const port = await freePort();
    this.ports.set(as, port);
    const env: Record<string, string> = { [spec.portEnv]: String(port) };
    if (spec.grpc) env[spec.grpc.portEnv] = String(await freePort());
    await this.startProcess(name, as, env);
  }

  async startProcess(name: string, as = name, overrides: Record<string, string> = {}): Promise<void> {
    const spec = SPECS.find((s) => s.name === name)!;
    // e.g. TESTKIT_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile every process.
    const nodeArgs = process.env['TESTKIT_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
    // Each process gets only its own private key, as in production.
    const own = issuerOfProcess(name);
    const env: Record<string, string | undefined> = { ...process.env, ...this.env, ...overrides, SERVICE_NAME: name };
    for (const key of Object.keys(env)) {
      if (key.endsWith('_JWT_PRIVATE_KEY') && key !== `${own?.toUpperCase()}_JWT_PRIVATE_KEY`) delete env[key];
    }
    const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, spec.entry)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    this.logs.set(as, lines);
    const keep = (buf: Buffer) => {
      lines.push(...buf.toString().split('\n').filter(Boolean));
      if (lines.length > 2000) lines.splice(0, lines.length - 2000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.children.set(as, child);
    await this.waitHealthy(as, child);
  }

  private async waitHealthy(name: string, child: ChildProcess): Promise<void> {
    // Generous: on a loaded 2-core machine a first start (indexes, seed) can take tens of seconds.
    const deadline = Date.now() + READY_WITHIN_MS;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) {
        throw new Error(`${name} exited with ${child.exitCode}:\n${this.logOf(name).slice(-20).join('\n')}`);
      }
      try {
        const res = await fetch(`${this.url(name)}/readyz`);
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`${name} not ready within ${READY_WITHIN_MS / 1000} s:\n${this.logOf(name).slice(-20).join('\n')}`);
  }

  /** The operating-system process id of a running process (memory measurements read /proc/<pid>). */
  pid(name: string): number | undefined {
    return this.children.get(name)?.pid;
  }

  logOf(name: string): string[] {
    return this.logs.get(name) ?? [];
  }

  /** The log lines of every process that mention `text` (a request id, say), prefixed by the process. */
  logsMentioning(text: string): string[] {
    return [...this.logs].flatMap(([name, lines]) => lines.filter((l) => l.includes(text)).map((l) => `${name}: ${l}`));
  }

  /** Stops one process with a signal and waits for it to exit; returns its exit code. */
  async stopProcess(name: string, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.children.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    if (signal !== 'SIGKILL') child.kill('SIGCONT'); // a process frozen with SIGSTOP handles it only once continued
    return exited;
  }

  /**
   * Sends a signal without waiting for an exit: SIGSTOP freezes a process (its sockets stay open,
   * so callers hang as with a stuck neighbour), SIGCONT lets it go on.
   */
  signal(name: string, signal: NodeJS.Signals): void {
    const child = this.children.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} is not running`);
    child.kill(signal);
  }

  /** Runs the admin command line against this system's databases; parses --json output. */
  async admin(args: string[]): Promise<any> {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'gateway/dist/admin/cli.js'), ...args], {
      env: { ...process.env, ...this.env },
    });
    return args.includes('--json') ? JSON.parse(stdout) : stdout;
  }

  async destroy(): Promise<void> {
    for (const name of [...this.children.keys()].reverse()) await this.stopProcess(name);
    await dropDatabases(this.env['MONGO_URL']!, this.env['MONGO_DB_PREFIX']!);
    await this.vhost?.drop();
    if (this.env['MEDIA_DATA_DIR']?.includes('e2e-media-')) fs.rmSync(this.env['MEDIA_DATA_DIR'], { recursive: true, force: true });
  }
}
