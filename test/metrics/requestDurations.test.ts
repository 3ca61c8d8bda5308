import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestDurations } from '../../src/metrics/requestDurations.js';

/** The hand-kept histogram says what prom-client's Histogram would: cumulative, `le` inclusive. */
describe('http_request_duration_seconds', () => {
  it('counts each request in its bucket, cumulatively, with sum and count per series', async () => {
    const registry = new Registry();
    const durations = new RequestDurations(registry);
    durations.observe('GET', '/tasks/:id', 200, 1); // exactly on the 0.001 bound: inside it
    durations.observe('GET', '/tasks/:id', 200, 1.5);
    durations.observe('GET', '/tasks/:id', 200, 60_000); // past every bound: only +Inf
    durations.observe('POST', '/tasks', 201, 3);
    durations.observe('GET', undefined, 404, 0.2);
    const lines = (await registry.metrics()).split('\n');
    const of = (series: string) => Number(lines.find((l) => l.startsWith(`${series} `))?.split(' ')[1]);
    const task = 'method="GET",route="/tasks/:id",status_code="200"';
    expect(of(`http_request_duration_seconds_bucket{${task},le="0.001"}`)).toBe(1);
    expect(of(`http_request_duration_seconds_bucket{${task},le="0.0025"}`)).toBe(2);
    expect(of(`http_request_duration_seconds_bucket{${task},le="10"}`)).toBe(2);
    expect(of(`http_request_duration_seconds_bucket{${task},le="+Inf"}`)).toBe(3);
    expect(of(`http_request_duration_seconds_count{${task}}`)).toBe(3);
    expect(of(`http_request_duration_seconds_sum{${task}}`)).toBeCloseTo(60.0025, 9);
    expect(
      of('http_request_duration_seconds_bucket{method="POST",route="/tasks",status_code="201",le="0.0025"}'),
    ).toBe(0);
    expect(
      of('http_request_duration_seconds_bucket{method="POST",route="/tasks",status_code="201",le="0.005"}'),
    ).toBe(1);
    expect(of('http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}')).toBe(
      1,
    );
    expect(lines).toContain('# TYPE http_request_duration_seconds histogram');
  });
});
