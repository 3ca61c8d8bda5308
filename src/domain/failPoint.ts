/**
 * Fault injection for the crash tests: HANDOFF_FAIL_AT=<point> makes the process exit at once
 * (like SIGKILL: no cleanup, nothing flushed) the first time it reaches that point. The points:
 * `after-persist` and `after-send` (src/domain/chain/chainSender.ts, network payouts) and
 * `bonus-before-send` (src/domain/money/bonuses.ts, a bonus committed, its transfers not sent).
 */
export async function failPoint(name: string): Promise<void> {
  if (process.env.HANDOFF_FAIL_AT === name) {
    process.kill(process.pid, 'SIGKILL');
    await new Promise(() => {});
  }
}
