// The two wallet contracts the service uses, from their own files in @ton/ton: its index also
// loads its whole API client (TonClient, HTTP, every contract), about 200 ms of CPU at every
// start. @ton/ton has no "exports" map, so these paths are its published layout; the type check
// and the wallet tests fail if an upgrade moves them.
export { WalletContractV4 } from '@ton/ton/dist/wallets/WalletContractV4.js';
export { WalletContractV5R1 } from '@ton/ton/dist/wallets/WalletContractV5R1.js';
