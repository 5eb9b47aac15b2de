import type { ConfigOf, VarSpec } from '@social/config';
import type { NetworkAdapter } from './adapter/network-adapter';
import { SandboxAdapter } from './sandbox/sandbox-adapter';

/**
 * Variables of every service that talks to networks; merge into the service's own spec:
 * `loadConfig({ ...commonSpec, ...networksSpec, ... })`.
 */
export const networksSpec = {
  networkAdapter: {
    env: 'NETWORK_ADAPTER',
    type: 'string',
    enum: ['sandbox'],
    default: 'sandbox',
    description: 'Which adapter reaches the networks; real network adapters plug in here.',
  },
  networkSandboxUrl: { env: 'NETWORK_SANDBOX_URL', type: 'string', format: 'uri', default: 'http://127.0.0.1:8090' },
  networkTimeoutMs: { env: 'NETWORK_TIMEOUT_MS', type: 'integer', minimum: 100, default: 10000 },
  networkMaxSockets: { env: 'NETWORK_MAX_SOCKETS', type: 'integer', minimum: 1, default: 256 },
} as const satisfies Record<string, VarSpec>;

export type NetworksConfig = ConfigOf<typeof networksSpec>;

export function createNetworkAdapter(config: NetworksConfig): NetworkAdapter {
  switch (config.networkAdapter) {
    case 'sandbox':
      return new SandboxAdapter({
        baseUrl: config.networkSandboxUrl,
        timeoutMs: config.networkTimeoutMs,
        maxSockets: config.networkMaxSockets,
      });
    default:
      throw new Error(`Unknown NETWORK_ADAPTER "${config.networkAdapter}"`);
  }
}
