import * as grpc from '@grpc/grpc-js';
import { errorFromStatus } from './metadata';
import { serviceDefinition } from './proto-loader';

export const HEALTH_PROTO = 'grpc/health/v1/health.proto';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';

export type ServingStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

interface HealthRequest {
  service: string;
}
interface HealthResponse {
  status: ServingStatus;
}
type WatchCall = grpc.ServerWritableStream<HealthRequest, HealthResponse>;

export const healthDefinition = (): grpc.ServiceDefinition => serviceDefinition(HEALTH_PROTO, HEALTH_SERVICE);

/** The serving status of one server's services, served as grpc.health.v1.Health. */
export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Map<string, Set<WatchCall>>();

  get(service: string): ServingStatus | undefined {
    return this.statuses.get(service);
  }

  set(service: string, status: ServingStatus): void {
    if (this.statuses.get(service) === status) return;
    this.statuses.set(service, status);
    for (const call of this.watchers.get(service) ?? []) call.write({ status });
  }

  /** Ends every Watch stream: a graceful shutdown waits for open streams, and these never end alone. */
  endWatches(): void {
    for (const calls of this.watchers.values()) for (const call of calls) call.end();
    this.watchers.clear();
  }

  readonly implementation: grpc.UntypedServiceImplementation = {
    Check: (call: grpc.ServerUnaryCall<HealthRequest, HealthResponse>, callback: grpc.sendUnaryData<HealthResponse>) => {
      const status = this.statuses.get(call.request.service);
      if (!status) {
        callback({ code: grpc.status.NOT_FOUND, details: `Unknown service "${call.request.service}".` });
        return;
      }
      callback(null, { status });
    },
    Watch: (call: WatchCall) => {
      const service = call.request.service;
      let calls = this.watchers.get(service);
      if (!calls) this.watchers.set(service, (calls = new Set()));
      calls.add(call);
      call.on('cancelled', () => calls.delete(call));
      call.write({ status: this.statuses.get(service) ?? 'SERVICE_UNKNOWN' });
    },
  };
}

/**
 * Asks a server for the status of one service ('' = the whole server), for readiness probes and
 * tests. An unregistered service answers SERVICE_UNKNOWN; an unreachable server rejects with an
 * AppError (SERVICE_UNAVAILABLE or DEADLINE_EXCEEDED).
 */
export function checkHealth(address: string, service = '', options: { timeoutMs?: number } = {}): Promise<ServingStatus> {
  const check = healthDefinition()['Check']!;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise<ServingStatus>((resolve, reject) => {
    client.makeUnaryRequest<HealthRequest, HealthResponse>(
      check.path,
      check.requestSerialize,
      check.responseDeserialize,
      { service },
      new grpc.Metadata(),
      { deadline: Date.now() + (options.timeoutMs ?? 1000) },
      (err, response) => {
        client.close();
        if (err?.code === grpc.status.NOT_FOUND) resolve('SERVICE_UNKNOWN');
        else if (err) reject(errorFromStatus(err, `Health of ${address}`));
        else resolve(response?.status ?? 'UNKNOWN');
      },
    );
  });
}
