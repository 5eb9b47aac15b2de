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
