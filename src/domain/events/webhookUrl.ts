import { refuseNonPublicHost } from '../../events/addressGuard.js';
import type { WebhookSettings } from '../../events/dispatcher.js';
import { invalid } from '../errors.js';

export const MAX_URL_LENGTH = 2000;

/** A webhook URL must be an absolute http(s) URL without credentials. */
export function checkWebhookUrl(path: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(path, 'must be an absolute http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(path, 'must be an absolute http:// or https:// URL');
  }
  if (url.username || url.password) throw invalid(path, 'must not contain a user name or password');
  if (value.length > MAX_URL_LENGTH) throw invalid(path, `must be at most ${MAX_URL_LENGTH} characters`);
  return url.toString();
}

/**
 * A webhook URL as `checkWebhookUrl` accepts it, whose host is also a public address unless
 * private targets are allowed (development). Deliveries check the resolved address again.
 */
export async function checkWebhookTarget(
  path: string,
  value: string,
  settings: WebhookSettings,
): Promise<string> {
  const url = checkWebhookUrl(path, value);
  if (!settings.allowPrivateTargets) {
    const refused = await refuseNonPublicHost(new URL(url).hostname);
    if (refused) throw invalid(path, `must reach a public address: ${refused}`);
  }
  return url;
}

/**
 * The endpoint a webhook URL reaches (`scheme://host:port`, URL.origin): what the in-flight caps
 * and the quarantine are kept by, since one server answers (or hangs) for every path on it.
 */
export function endpointOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    // Stored URLs were checked when set; an unparsable one is its own endpoint.
    return url;
  }
}
