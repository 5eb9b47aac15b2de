import { counter, metricsText, publishOutcomes, mediaProcessingDuration } from './index';

describe('metrics registry', () => {
  it('exposes the default Node metrics', async () => {
    const { body, contentType } = await metricsText();
    expect(contentType).toMatch(/^text\/plain/);
    expect(body).toContain('process_cpu_user_seconds_total');
    expect(body).toContain('nodejs_eventloop_lag_seconds');
  });

  it('returns the same series when asked twice, so several apps in one process share it', () => {
    const spec = { name: 'test_things_total', help: 'things', labelNames: ['kind'] as const };
    expect(counter(spec)).toBe(counter(spec));
  });

  it('exposes publish outcomes per network and media processing durations', async () => {
    publishOutcomes().inc({ net: 'generalNet', outcome: 'published' });
    mediaProcessingDuration().observe({ kind: 'image', outcome: 'ok' }, 0.3);
    const { body } = await metricsText();
    expect(body).toContain('publish_outcomes_total{net="generalNet",outcome="published"} 1');
    expect(body).toContain('media_processing_duration_seconds_bucket{le="0.5",kind="image",outcome="ok"} 1');
  });
});
