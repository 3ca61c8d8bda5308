import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Mutex } from '../../src/chain/mutex.js';

describe('Mutex', () => {
  it('runs tasks one at a time, in call order', async () => {
    const mutex = new Mutex();
    const order: number[] = [];
    let active = 0;
    let maxActive = 0;
    const results = await Promise.all(
      [30, 5, 20, 0, 10].map((delayMs, i) =>
        mutex.run(async () => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          await sleep(delayMs);
          order.push(i);
          active -= 1;
          return i * 10;
        }),
      ),
    );
    expect(maxActive).toBe(1);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results).toEqual([0, 10, 20, 30, 40]);
  });

  it('keeps going after a task fails, and hands the failure to its caller', async () => {
    const mutex = new Mutex();
    const failed = mutex.run(async () => {
      throw new Error('boom');
    });
    const next = mutex.run(async () => 'ok');
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ok');
  });
});
