import { createEnvelope } from '@social/events';
import { deterministicEventId, publishJobEventId, publishJobName, publishKey, publishRequested } from './publishing.events';

describe('publishing contracts', () => {
  it('keys the ledger by (post, profile), so every revision of a profile shares one entry', () => {
    expect(publishKey({ postId: 'p1', profileId: 'pr1' })).toBe('p1:pr1');
    expect(publishJobName({ postId: 'p1', profileId: 'pr1', revision: 3 })).toBe('p1:pr1:3');
  });

  it('gives copies of one job the same envelope id, another revision or attempt another one, valid as a UUID', () => {
    const job = { postId: 'p1', profileId: 'pr1', revision: 3 };
    expect(publishJobEventId(job)).toBe(publishJobEventId({ ...job }));
    expect(publishJobEventId(job)).not.toBe(publishJobEventId({ ...job, revision: 4 }));
    expect(publishJobEventId(job, 1)).not.toBe(publishJobEventId(job, 2));
    expect(deterministicEventId('x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const env = createEnvelope(
      publishRequested,
      { ...job, net: 'generalNet', dueAt: new Date().toISOString() },
      { id: publishJobEventId(job), workspaceId: 'w1', correlationId: 'c' },
    );
    expect(env.id).toBe(publishJobEventId(job));
  });
});
