import winston from 'winston';
import { createLogger, setLogLevel } from './create-logger';

/** The lines that reach the console transport, parsed (what an operator's log collector gets). */
function captureLines(): { lines: Record<string, unknown>[]; restore(): void } {
  const lines: Record<string, unknown>[] = [];
  const spy = jest.spyOn(winston.transports.Console.prototype, 'log').mockImplementation(function (
    this: unknown,
    info: unknown,
    next: () => void,
  ) {
    lines.push(JSON.parse((info as Record<symbol, string>)[Symbol.for('message')]!));
    next();
  } as never);
  return { lines, restore: () => spy.mockRestore() };
}

describe('createLogger', () => {
  afterEach(() => setLogLevel('info'));

  it('writes lines at and above the level as JSON with timestamp, component and redacted secrets', () => {
    setLogLevel('warn');
    const { lines, restore } = captureLines();
    const log = createLogger('test:component');
    log.info('below the level');
    log.debug('far below');
    log.warn('at the level', { token: 'secret-value', postId: 'p1' });
    log.error('above the level');
    restore();
    expect(lines.map((l) => l['message'])).toEqual(['at the level', 'above the level']);
    expect(lines[0]).toMatchObject({ level: 'warn', component: 'test:component', postId: 'p1', token: '[redacted]' });
    expect(typeof lines[0]!['timestamp']).toBe('string');
  });

  it('follows a level changed at run time', () => {
    setLogLevel('error');
    const { lines, restore } = captureLines();
    const log = createLogger('test:level');
    log.warn('dropped');
    setLogLevel('info');
    log.info('kept');
    restore();
    expect(lines.map((l) => l['message'])).toEqual(['kept']);
  });

  it('never reads the fields of a line below the level, through child() too', () => {
    setLogLevel('warn');
    const { lines, restore } = captureLines();
    let reads = 0;
    const fields = {
      get postId() {
        reads += 1;
        return 'p1';
      },
    };
    const log = createLogger('test:skip');
    log.info('below', fields);
    log.debug('below', fields);
    log.child({ jobId: 'j1' }).info('below', fields);
    expect(reads).toBe(0);
    log.child({ jobId: 'j1' }).warn('at the level', fields);
    restore();
    expect(reads).toBeGreaterThan(0);
    expect(lines).toEqual([expect.objectContaining({ message: 'at the level', jobId: 'j1', postId: 'p1', component: 'test:skip' })]);
  });
});
