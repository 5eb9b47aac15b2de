import { metricsText } from '@social/metrics';
import { BrokerEventEmitter } from './emitter';
import { defineEvent } from './envelope';

const somethingHappened = defineEvent<{ n: number }>({
  type: 'test.emitter.happened',
  exchange: 'x',
  payloadSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
});

const flush = () => new Promise((r) => setImmediate(r));

describe('BrokerEventEmitter', () => {
  it('returns at once and hands the event to the broker with its workspace', async () => {
    const publish = jest.fn().mockResolvedValue(undefined);
    new BrokerEventEmitter({ publish }).emit(somethingHappened, { n: 1 }, 'ws_1');
    expect(publish).toHaveBeenCalledWith(somethingHappened, { n: 1 }, expect.objectContaining({ workspaceId: 'ws_1' }));
  });

  it('never throws when the broker is down, and counts the event as dropped', async () => {
    const publish = jest.fn().mockRejectedValue(new Error('broker unavailable'));
    const emitter = new BrokerEventEmitter({ publish });
    expect(() => emitter.emit(somethingHappened, { n: 2 }, 'ws_1')).not.toThrow();
    await flush();
    expect((await metricsText()).body).toMatch(/domain_events_dropped_total\{type="test\.emitter\.happened"\} 1/);
  });

  it('never throws when publish throws synchronously', async () => {
    const publish = jest.fn(() => {
      throw new Error('bad');
    });
    expect(() => new BrokerEventEmitter({ publish: publish as never }).emit(somethingHappened, { n: 3 }, 'ws_1')).not.toThrow();
    await flush();
    expect((await metricsText()).body).toMatch(/domain_events_dropped_total\{type="test\.emitter\.happened"\} 2/);
  });
});
