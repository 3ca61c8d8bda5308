import type { ChainGateway, TransferRequest, TransferResult } from './gateway.js';

/**
 * A gateway that hands every call to another; a wrapper overrides only what it changes (the
 * sandbox guard refuses sends without its lease, tests inject faults). `live` is not passed on:
 * the wrappers are for the sandbox, whose sends go through `transfer`.
 */
export class DelegatingGateway implements ChainGateway {
  constructor(protected readonly inner: ChainGateway) {}

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
  /** Passed on as it is: the sandbox guard and the fault wrappers cover TON sends only. */
  get jetton() {
    return this.inner.jetton;
  }

  transfer(req: TransferRequest): Promise<TransferResult> {
    return this.inner.transfer(req);
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
