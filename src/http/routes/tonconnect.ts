import type { FastifyInstance, FastifyReply } from 'fastify';
import {
  PLACEHOLDER_ICON,
  UI_ICONS,
  UI_ICONS_PATH,
  WALLET_ICONS_PATH,
  WALLETS_PATH,
  type WalletIcon,
  type WalletsCatalog,
} from '../../tonconnect/walletsCatalog.js';

/** The list changes at most daily; a page reloaded within minutes need not ask again. */
const LIST_CACHE = 'public, max-age=300';
/**
 * A placeholder is replaced once the icon is fetched: browsers keep it only briefly. A fetched
 * icon is kept for a day (a wallet's new image arrives with the next daily refresh anyway).
 */
const PLACEHOLDER_CACHE = 'public, max-age=300';
const ICON_CACHE = 'public, max-age=86400';

function sendIcon(reply: FastifyReply, icon: WalletIcon | null) {
  return (
    reply
      .header('content-type', icon ? icon.contentType : 'image/svg+xml')
      .header('cache-control', icon ? ICON_CACHE : PLACEHOLDER_CACHE)
      .header('x-content-type-options', 'nosniff')
      // Opened on its own, an image is a document: it may load and run nothing.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .send(icon ? icon.body : PLACEHOLDER_ICON)
  );
}

/**
 * The TON Connect wallets list and icons the web apps load instead of config.ton.org and the
 * wallets' image hosts (src/tonconnect/walletsCatalog.ts).
 */
export function tonConnectRoutes(app: FastifyInstance, catalog: WalletsCatalog) {
  app.get(WALLETS_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', LIST_CACHE).send(catalog.publicList()),
  );
  app.get<{ Params: { appName: string } }>(
    `${WALLET_ICONS_PATH}/:appName`,
    { schema: { hide: true } },
    async (request, reply) => {
      const { appName } = request.params;
      if (!catalog.isListed(appName)) {
        return reply.status(404).send({ error: `No wallet "${appName.slice(0, 64)}" in ${WALLETS_PATH}` });
      }
      return sendIcon(reply, catalog.icon(appName));
    },
  );
  app.get<{ Params: { name: string } }>(
    `${UI_ICONS_PATH}/:name`,
    { schema: { hide: true } },
    async (request, reply) => {
      const { name } = request.params;
      if (!(UI_ICONS as readonly string[]).includes(name)) {
        return reply.status(404).send({ error: `${UI_ICONS_PATH}/ serves only ${UI_ICONS.join(', ')}` });
      }
      return sendIcon(reply, catalog.uiIcon(name));
    },
  );
}
