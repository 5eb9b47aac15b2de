import { parseArgs, UsageError } from './commands';

describe('admin argument parsing', () => {
  it('parses workspace create with flags in both spellings', () => {
    expect(parseArgs(['workspace', 'create', '--name', 'Acme', '--plan=pro', '--json'])).toEqual({
      command: 'workspace create',
      flags: { name: 'Acme', plan: 'pro', json: true },
    });
  });

  it('rejects unknown commands and options with the usage text', () => {
    expect(() => parseArgs(['workspace', 'delete'])).toThrow(UsageError);
    expect(() => parseArgs(['key', 'revoke', '--apiid', 'x'])).toThrow(/Unknown option --apiid/);
  });

  it('requires a value for string options', () => {
    expect(() => parseArgs(['key', 'issue', '--workspace'])).toThrow(/--workspace needs a value/);
  });
});

import { runCommand, type CommandDeps, type ConnectedProfile } from './commands';

describe('profile commands', () => {
  const profile: ConnectedProfile = {
    id: 'p1',
    name: 'Acme Studio',
    username: 'acmestudio',
    picture: 'http://x/p.svg',
    net: { code: 'generalNet', name: 'General Net' },
    statusLevel: 'OK',
  };
  const calls: string[] = [];
  const deps = (over: Partial<CommandDeps> = {}): CommandDeps =>
    ({
      repo: {
        findWorkspace: async (id: string) => (id === 'ws_1' ? { id, name: 'A', plan: 'free' } : null),
        createWorkspace: async (name: string, plan: string) => (calls.push('create'), { id: 'ws_new', name, plan }),
        issueKey: async () => ({ apiId: 'aid_1', apiKey: 'ask_1' }),
      },
      keyCache: {},
      plans: ['free'],
      defaultPlan: 'free',
      env: {},
      connectProfile: async (ws: string, net: string, account: string) => (calls.push(`connect ${ws} ${net} ${account}`), profile),
      connectSandboxProfiles: async () => [profile],
      checkCompetitors: async () => undefined,
      ...over,
    }) as unknown as CommandDeps;
  beforeEach(() => {
    calls.length = 0;
  });

  it('parses profile connect', () => {
    expect(parseArgs(['profile', 'connect', '--workspace', 'ws_1', '--net', 'generalNet', '--account=gn-own-1', '--json'])).toEqual({
      command: 'profile connect',
      flags: { workspace: 'ws_1', net: 'generalNet', account: 'gn-own-1', json: true },
    });
  });

  it('connects a profile of an existing workspace and prints it as JSON', async () => {
    const out = await runCommand(
      parseArgs(['profile', 'connect', '--workspace', 'ws_1', '--net', 'generalNet', '--account', 'gn-own-1', '--json']),
      deps(),
    );
    expect(JSON.parse(out)).toEqual(profile);
    expect(calls).toEqual(['connect ws_1 generalNet gn-own-1']);
  });

  it('refuses to connect a profile to an unknown workspace, or without the required options', async () => {
    await expect(
      runCommand(parseArgs(['profile', 'connect', '--workspace', 'ws_x', '--net', 'generalNet', '--account', 'a']), deps()),
    ).rejects.toThrow(/No workspace ws_x/);
    await expect(runCommand(parseArgs(['profile', 'connect', '--workspace', 'ws_1', '--net', 'generalNet']), deps())).rejects.toThrow(
      /--account is required/,
    );
    expect(calls).toEqual([]);
  });

  it('prints the connected sandbox profiles with the new workspace', async () => {
    const out = JSON.parse(await runCommand(parseArgs(['workspace', 'create', '--name', 'A', '--sandbox-profiles', '--json']), deps()));
    expect(out).toEqual({ workspaceId: 'ws_new', apiId: 'aid_1', apiKey: 'ask_1', profiles: [profile] });
  });

  it('creates no workspace when the competitors service cannot be reached', async () => {
    const down = deps({ checkCompetitors: async () => Promise.reject(new Error('not serving')) });
    await expect(runCommand(parseArgs(['workspace', 'create', '--name', 'A', '--sandbox-profiles']), down)).rejects.toThrow('not serving');
    expect(calls).toEqual([]);
  });
});
