import { execFileSync } from 'node:child_process';
import path from 'node:path';

describe('the generated types', () => {
  it('match the OpenAPI document (run `pnpm --filter @social/client generate` when this fails)', () => {
    const script = path.resolve(__dirname, '../scripts/generate.mjs');
    const run = () => execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8', stdio: 'pipe' });
    expect(run).not.toThrow();
  });
});
