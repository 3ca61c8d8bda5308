import { DelegatingGateway } from '../../src/chain/delegatingGateway.js';
import type { TransferRequest, TransferResult } from '../../src/chain/gateway.js';

/**
 * The real sandbox gateway with switchable faults: `down` makes transfers fail before anything
 * is sent; `crashAfterSend` sends for real and then throws, as a process dying right after the
 * chain accepted the transfer would look to the caller.
 */
export class FaultyChain extends DelegatingGateway {
  down = false;
  crashAfterSend = false;
  sendCalls = 0;

  override async transfer(req: TransferRequest): Promise<TransferResult> {
    this.sendCalls++;
    if (this.down) throw new Error('injected fault: chain unreachable');
    const result = await this.inner.transfer(req);
    if (this.crashAfterSend) throw new Error('injected fault: lost the answer after sending');
    return result;
  }
}
