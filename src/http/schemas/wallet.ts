import { Type } from 'typebox';
import { nameSchemas, Timestamp } from './common.js';

export const WalletChallenge = Type.Object({
  payload: Type.String({
    description: "Put this in TonConnect UI's ton_proof request (setConnectRequestParameters); single use",
  }),
  expiresAt: Timestamp,
});

export const TonConnectProof = Type.Object(
  {
    address: Type.String({
      minLength: 1,
      maxLength: 100,
      description: '`wallet.account.address`: the raw form 0:<hex>',
    }),
    network: Type.Union([Type.Literal('-239'), Type.Literal('-3')], {
      description: '`wallet.account.chain`: -239 mainnet, -3 testnet',
    }),
    public_key: Type.String({
      pattern: '^[0-9a-fA-F]{64}$',
      description: '`wallet.account.publicKey`, hex',
    }),
    proof: Type.Object({
      // A number from TonConnect UI, a decimal string in the TON Connect wire format: both taken.
      timestamp: Type.Unsafe<number | string>({
        type: ['integer', 'string'],
        minimum: 0,
        pattern: '^[0-9]{1,15}$',
        description: 'Unix seconds of the signing (a number, or a decimal string)',
      }),
      domain: Type.Object({
        lengthBytes: Type.Integer({ minimum: 0, maximum: 1000 }),
        value: Type.String({ maxLength: 1000 }),
      }),
      signature: Type.String({ minLength: 1, maxLength: 200, description: 'Base64 Ed25519 signature' }),
      payload: Type.String({ minLength: 1, maxLength: 200, description: 'The challenge payload' }),
      state_init: Type.String({
        minLength: 1,
        maxLength: 8192,
        description: "`wallet.account.walletStateInit`: base64 BOC of the wallet's StateInit",
      }),
    }),
  },
  {
    title: 'TON Connect proof',
    description:
      '`wallet.account` plus `wallet.connectItems.tonProof.proof` from TON Connect, for a payload from ' +
      'POST /worker/me/wallet/challenge. Supported wallets: v4r2 and v5r1.',
  },
);

/**
 * The proof variant is listed first and the bare one refuses a `proof` field: the app's Ajv strips
 * unknown fields while it tries each variant, so a proof body that failed its own variant would
 * otherwise reach the handler as a bare address with its proof stripped.
 */
export const WalletBody = Type.Union([
  TonConnectProof,
  Type.Object(
    { address: Type.String({ minLength: 1, maxLength: 100 }) },
    {
      title: 'Bare address (sandbox only)',
      description: 'Accepted only when the service runs on the TON sandbox (TON_NETWORK=sandbox)',
      not: { required: ['proof'] },
    },
  ),
]);

nameSchemas({ WalletChallenge, WalletBody });
