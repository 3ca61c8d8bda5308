import { Type } from 'typebox';
import {
  issueOwnerChallenge,
  OWNER_CHALLENGE_TTL_MS,
  OWNER_SESSION_TTL_MS,
  signInOwner,
  signOutOwner,
} from '../../domain/owners/ownerSessions.js';
import { SHORT_BODY_LIMIT_BYTES } from '../bodyLimits.js';
import { clientGroup } from '../clientAddress.js';
import {
  readCookie,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  secureCookies,
  sessionCookie,
  signInCookie,
} from '../consoleAuth.js';
import type { Routes } from '../routeTypes.js';
import { errors } from '../schemas/common.js';
import { OwnerSessionView } from '../schemas/console.js';
import { TonConnectProof, WalletChallenge } from '../schemas/wallet.js';

const SESSION_MAX_AGE_S = Math.floor(OWNER_SESSION_TTL_MS / 1000);
const SIGN_IN_MAX_AGE_S = Math.floor(OWNER_CHALLENGE_TTL_MS / 1000);

/** Sign-in: anyone may ask for a challenge and present a proof (rate-limited per client address). */
export const consoleSignInRoutes: Routes = async (app, { ctx, config }) => {
  const secure = secureCookies(config.publicUrl);

  app.post(
    '/auth/challenge',
    { schema: { response: { 200: WalletChallenge, ...errors(429) } } },
    async (request, reply) => {
      const { payload, expiresAt, browser } = await issueOwnerChallenge(ctx, {
        client: clientGroup(request.ip),
        browser: readCookie(request, SIGN_IN_COOKIE),
      });
      reply.header('set-cookie', signInCookie(browser, { secure, maxAgeS: SIGN_IN_MAX_AGE_S }));
      return { payload, expiresAt };
    },
  );

  app.post(
    '/auth/login',
    {
      bodyLimit: SHORT_BODY_LIMIT_BYTES,
      schema: {
        body: TonConnectProof,
        response: { 200: OwnerSessionView, ...errors(400, 429) },
      },
    },
    async (request, reply) => {
      // Read at request time: the allowed domains may be set after the server learns its port.
      const { token, session } = await signInOwner(ctx, request.body, {
        allowedDomains: config.tonProofDomains,
        browser: readCookie(request, SIGN_IN_COOKIE),
      });
      reply.header('set-cookie', [
        sessionCookie(token, { secure, maxAgeS: SESSION_MAX_AGE_S }),
        signInCookie('', { secure, maxAgeS: 0 }),
      ]);
      return {
        owner: { id: session.ownerId, walletAddress: session.walletAddress },
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
        network: ctx.chain.network,
      };
    },
  );
};

/** The signed-in owner's session (behind the session hook). */
export const consoleSessionRoutes: Routes = async (app, { ctx, config }) => {
  const secure = secureCookies(config.publicUrl);

  app.get(
    '/session',
    { schema: { response: { 200: OwnerSessionView, ...errors(401) } } },
    async (request) => {
      const session = request.owner!;
      return {
        owner: { id: session.ownerId, walletAddress: session.walletAddress },
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
        network: ctx.chain.network,
      };
    },
  );

  app.post(
    '/auth/logout',
    { schema: { response: { 200: Type.Object({ signedOut: Type.Boolean() }), ...errors(401, 403) } } },
    async (request, reply) => {
      await signOutOwner(ctx, readCookie(request, SESSION_COOKIE) ?? '');
      reply.header('set-cookie', sessionCookie('', { secure, maxAgeS: 0 }));
      return { signedOut: true };
    },
  );
};
