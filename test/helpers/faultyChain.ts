import type { ChainGateway, TransferRequest, TransferResult } from '../../src/chain/gateway.js';

/**
 * The real sandbox gateway with switchable faults: `down` makes transfers fail before anything
 * is sent; `crashAfterSend` sends for real and then throws, as a process dying right after the
 * chain accepted the transfer would look to the caller.
 */
export class FaultyChain implements ChainGateway {
  down = false;
  crashAfterSend = false;
  sendCalls = 0;

  constructor(private readonly inner: ChainGateway) {}

  get network() {
    return this.inner.network;
  }
  get hotWalletAddress() {
    return this.inner.hotWalletAddress;
  }
  get depositAddress() {
    return this.inner.depositAddress;
  }
  get feeAddress() {
    return this.inner.feeAddress;
  }

  async transfer(req: TransferRequest): Promise<TransferResult> {
    this.sendCalls++;
    if (this.down) throw new Error('injected fault: chain unreachable');
    const result = await this.inner.transfer(req);
    if (this.crashAfterSend) throw new Error('injected fault: lost the answer after sending');
    return result;
  }

  findTransfer(transferId: string) {
    return this.inner.findTransfer(transferId);
  }
  getBalance(address: string) {
    return this.inner.getBalance(address);
  }
  sendTestDeposit(memo: string, amountNano: bigint) {
    return this.inner.sendTestDeposit(memo, amountNano);
  }
  close() {
    return this.inner.close();
  }
}
