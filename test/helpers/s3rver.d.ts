// s3rver ships no TypeScript types: this declares only the part of its API the tests use
// (s3rver 3's README, "Programmatically running s3rver").
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    /** 0: a free port, read back from run()'s result. */
    port?: number;
    silent?: boolean;
    /** Where objects are kept on disk. */
    directory: string;
    configureBuckets?: { name: string; configs: (string | Buffer)[] }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
