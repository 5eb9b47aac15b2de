import { runWithContext } from '@social/logger';
import { correlationIdFor } from './correlation';

describe('correlationIdFor', () => {
  it('is the request id inside a request', () => {
    const id = runWithContext({ requestId: 'req-1', workspaceId: 'w' }, () => correlationIdFor('event-1'));

    expect(id).toBe('req-1');
  });

  it('is the correlation id of the event being handled, even when a request id is also known', () => {
    const id = runWithContext({ requestId: 'req-1', correlationId: 'corr-1' }, () => correlationIdFor('event-1'));

    expect(id).toBe('corr-1');
  });

  it('is the event id when nothing caused the event', () => {
    expect(correlationIdFor('event-1')).toBe('event-1');
  });
});
