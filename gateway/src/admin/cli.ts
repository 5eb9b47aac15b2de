import Redis from 'ioredis';
import { closeMongo, connectMongo } from '@social/mongo';
import { GATEWAY_ISSUER, TokenSigner } from '@social/internal-auth';
import { setLogLevel } from '@social/logger';
import { gatewayDbName, loadGatewayConfig } from '../config';
import { gatewayModels } from '../data/workspace.model';
import { WorkspaceRepository } from '../data/workspace.repository';
import { KeyCache } from '../auth/key-cache';
import { parseArgs, runCommand, UsageError } from './commands';
import { competitorsCommands } from './competitors-client';

/**
 * `pnpm admin ...`: how credentials are issued. It talks to the gateway's own database and Redis
 * with the same configuration (and defaults) as the gateway, so it works against `pnpm start`.
 */
async function main(argv: string[]): Promise<number> {
  setLogLevel('warn');
  const cfg = loadGatewayConfig();
  const args = parseArgs(argv);
  const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: gatewayDbName(cfg), timeoutMs: 10000 });
  const redis = new Redis(cfg.redisUrl, { maxRetriesPerRequest: 2 });
  const competitors = competitorsCommands(process.env, new TokenSigner(GATEWAY_ISSUER, cfg.jwtPrivateKey));
  try {
    const repo = new WorkspaceRepository(gatewayModels(mongo));
    const out = await runCommand(args, {
      repo,
      keyCache: new KeyCache(redis, { ttlSeconds: cfg.keyCacheTtlSeconds }),
      plans: Object.keys(cfg.plans),
      defaultPlan: cfg.defaultPlan,
      env: process.env,
      connectProfile: competitors.connectProfile,
      connectSandboxProfiles: competitors.connectSandboxProfiles,
      checkCompetitors: competitors.checkCompetitors,
    });
    process.stdout.write(out.endsWith('\n') ? out : `${out}\n`);
    return 0;
  } finally {
    competitors.close();
    redis.disconnect();
    await closeMongo(mongo);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof UsageError ? err.message : `admin: ${(err as Error).message}`}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
