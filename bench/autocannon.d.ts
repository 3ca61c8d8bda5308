// autocannon ships no TypeScript types and the project adds no dependencies (not even
// @types/autocannon), so this declares only the part of its API the benchmark uses.
// Field names follow autocannon 8's README ("Results" and "API").
declare module 'autocannon' {
  export interface Options {
    /** Several URLs: connection i goes to url[i % n]. */
    url: string | string[];
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds per request before it counts as a timeout. */
    timeout?: number;
    /** Runs the load in worker threads, so it does not share the server's event loop. */
    workers?: number;
  }

  /** hdr-histogram-percentiles-obj: latency values are milliseconds. */
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  }

  export interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
