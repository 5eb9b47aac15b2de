import type { WorkspaceRepository } from '../data/workspace.repository';
import type { KeyCache } from '../auth/key-cache';

export class UsageError extends Error {}

export const USAGE = `Usage: pnpm admin <command> [options]

  workspace create --name NAME [--plan PLAN] [--sandbox-profiles] [--json]
      Creates a workspace and its first API key pair (the key is shown once). --sandbox-profiles
      also connects one own sandbox account of each publishing network (the competitors service).
  workspace list [--json]
  key issue --workspace WORKSPACE_ID [--json]
      Issues another key pair for a workspace.
  key revoke --api-id API_ID
      Revokes a key pair at once (the gateway's key cache entry is dropped).
  profile connect --workspace WORKSPACE_ID --net NET --account ACCOUNT_ID [--json]
      Connects an own network account (e.g. --net generalNet --account gn-own-1) to a workspace.
      Connecting a connected account again shows the existing profile (a profile in ERROR is
      reconnected with a fresh token).`;

export interface ParsedArgs {
  command: string;
  flags: Record<string, string | true>;
}

const COMMANDS: Record<string, { string: string[]; boolean: string[] }> = {
  'workspace create': { string: ['name', 'plan'], boolean: ['sandbox-profiles', 'json'] },
  'workspace list': { string: [], boolean: ['json'] },
  'key issue': { string: ['workspace'], boolean: ['json'] },
  'key revoke': { string: ['api-id'], boolean: ['json'] },
  'profile connect': { string: ['workspace', 'net', 'account'], boolean: ['json'] },
};

export function parseArgs(argv: string[]): ParsedArgs {
  const command = argv.slice(0, 2).join(' ');
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(argv.length ? `Unknown command "${command}".\n\n${USAGE}` : USAGE);
  const flags: Record<string, string | true> = {};
  const rest = argv.slice(2);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new UsageError(`Unexpected argument "${arg}".\n\n${USAGE}`);
    const name = m[1]!;
    if (spec.boolean.includes(name)) {
      flags[name] = true;
    } else if (spec.string.includes(name)) {
      const value = m[2] ?? rest[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value.`);
      flags[name] = value;
    } else {
      throw new UsageError(`Unknown option --${name} for "${command}".\n\n${USAGE}`);
    }
  }
  return { command, flags };
}

export interface CommandDeps {
  repo: WorkspaceRepository;
  keyCache: KeyCache;
  plans: string[];
  defaultPlan: string;
  env: NodeJS.ProcessEnv;
  /** Connects one sandbox account of each network to the workspace (the competitors service). */
  connectSandboxProfiles?: (workspaceId: string) => Promise<ConnectedProfile[]>;
  /** Connects one own network account to the workspace (the competitors service). */
  connectProfile?: (workspaceId: string, net: string, accountId: string) => Promise<ConnectedProfile>;
  /** Fails when the competitors service cannot be reached, before anything is created. */
  checkCompetitors?: () => Promise<void>;
}

/** A connected profile as the API shows it (spec 2.5). */
export interface ConnectedProfile {
  id: string;
  name: string;
  username: string;
  picture: string;
  net: { code: string; name: string };
  statusLevel: string;
}

const describeProfile = (p: ConnectedProfile) => `${p.id}  ${p.net.code.padEnd(16)} ${p.statusLevel.padEnd(5)} ${p.name} (@${p.username})`;

function required(flags: ParsedArgs['flags'], name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required.\n\n${USAGE}`);
  return v;
}

export async function runCommand({ command, flags }: ParsedArgs, deps: CommandDeps): Promise<string> {
  const json = flags['json'] === true;
  switch (command) {
    case 'workspace create': {
      const name = required(flags, 'name');
      if (name.length > 100) throw new UsageError('--name must be at most 100 characters.');
      const plan = typeof flags['plan'] === 'string' ? flags['plan'] : deps.defaultPlan;
      if (!deps.plans.includes(plan)) {
        throw new UsageError(`Unknown plan "${plan}"; configured plans: ${deps.plans.join(', ')}.`);
      }
      const sandboxProfiles = flags['sandbox-profiles'] === true;
      if (sandboxProfiles && !deps.connectSandboxProfiles) {
        throw new UsageError('--sandbox-profiles needs the competitors service, which this build does not include yet.');
      }
      if (sandboxProfiles) await deps.checkCompetitors?.();
      const ws = await deps.repo.createWorkspace(name, plan);
      const key = await deps.repo.issueKey(ws.id);
      const result: { workspaceId: string; apiId: string; apiKey: string; profiles?: ConnectedProfile[] } = {
        workspaceId: ws.id,
        apiId: key.apiId,
        apiKey: key.apiKey,
      };
      if (sandboxProfiles) result.profiles = await deps.connectSandboxProfiles!(ws.id);
      if (json) return JSON.stringify(result);
      const text = `Workspace ${ws.id} (${name}, plan ${plan})\nX-API-ID:  ${key.apiId}\nX-API-KEY: ${key.apiKey}\n(the key is shown only now)`;
      return result.profiles ? `${text}\nConnected profiles:\n${result.profiles.map(describeProfile).join('\n')}` : text;
    }
    case 'workspace list': {
      const list = await deps.repo.listWorkspaces();
      if (json) return JSON.stringify(list);
      if (list.length === 0) return 'No workspaces.';
      return list.map((w) => `${w.id}  ${w.plan.padEnd(8)} keys:${w.activeKeys}  ${w.name}`).join('\n');
    }
    case 'key issue': {
      const workspaceId = required(flags, 'workspace');
      if (!(await deps.repo.findWorkspace(workspaceId))) throw new UsageError(`No workspace ${workspaceId}.`);
      const key = await deps.repo.issueKey(workspaceId);
      // A lookup of this id may have been cached as unknown moments ago.
      await deps.keyCache.invalidate(key.apiId);
      return json ? JSON.stringify(key) : `X-API-ID:  ${key.apiId}\nX-API-KEY: ${key.apiKey}\n(the key is shown only now)`;
    }
    case 'key revoke': {
      const apiId = required(flags, 'api-id');
      const revoked = await deps.repo.revokeKey(apiId);
      await deps.keyCache.invalidate(apiId);
      if (!revoked) throw new UsageError(`No active key ${apiId}.`);
      return json ? JSON.stringify({ apiId, revoked: true }) : `Revoked ${apiId}.`;
    }
    case 'profile connect': {
      const workspaceId = required(flags, 'workspace');
      const net = required(flags, 'net');
      const account = required(flags, 'account');
      if (!deps.connectProfile) throw new UsageError('profile connect needs the competitors service.');
      if (!(await deps.repo.findWorkspace(workspaceId))) throw new UsageError(`No workspace ${workspaceId}.`);
      const profile = await deps.connectProfile(workspaceId, net, account);
      if (json) return JSON.stringify(profile);
      const warning =
        profile.statusLevel === 'OK' ? '' : '\nThe network refuses the access token: the profile is in ERROR until reconnected.';
      return `Connected ${describeProfile(profile)}${warning}`;
    }
    default:
      throw new UsageError(USAGE);
  }
}
