import type { ScreeningVerdict } from './screening.js';
import type { ScreeningCategory } from './screeningRules.js';

export interface ClassifierSettings {
  /** An OpenAI-moderation-compatible endpoint: POST {input} -> {results: [{flagged, categories}]}. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when given. */
  token: string | null;
  timeoutMs: number;
}

/** The rule id a classifier's hold carries (moderation.rule on the task, the operator's queue). */
export const CLASSIFIER_RULE = 'external-classifier';
/** Its answer is read up to this size; a longer one counts as no answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The classifier's category names (OpenAI's, and their prefixes) mapped onto ours. */
const CATEGORY_OF: [prefix: string, category: ScreeningCategory][] = [
  ['sexual', 'sexual_content'],
  ['self-harm', 'dangerous_acts'],
  ['illicit', 'weapons_and_drugs'],
  ['violence', 'harm_or_surveillance'],
  ['harassment', 'harm_or_surveillance'],
  ['hate', 'harm_or_surveillance'],
];

/**
 * Asks the external classifier about a task's text. It may only add a hold: a flagged answer
 * holds the task for an operator; anything else (not flagged, an error, a slow or malformed
 * answer) lets the task through on the rules alone, so the classifier's outage never blocks
 * posting. Bounded by `timeoutMs` for the whole exchange and by the answer's size.
 */
export async function classify(
  settings: ClassifierSettings,
  text: string,
): Promise<{ verdict: ScreeningVerdict | null; failure: string | null }> {
  try {
    const response = await fetch(settings.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}),
      },
      body: JSON.stringify({ input: text }),
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    });
    const body = await readBounded(response);
    if (!response.ok) return { verdict: null, failure: `the classifier answered ${response.status}` };
    const result = (JSON.parse(body) as { results?: unknown })?.results;
    const first = Array.isArray(result) ? (result[0] as Record<string, unknown> | undefined) : undefined;
    if (!first || typeof first.flagged !== 'boolean') {
      return { verdict: null, failure: 'the classifier answered without results[0].flagged' };
    }
    if (!first.flagged) return { verdict: null, failure: null };
    return {
      verdict: {
        action: 'hold',
        rule: {
          id: CLASSIFIER_RULE,
          name: 'Held for review by the content classifier',
          category: categoryOf(first.categories),
        },
      },
      failure: null,
    };
  } catch (error) {
    return { verdict: null, failure: `the classifier failed: ${(error as Error).message}` };
  }
}

async function readBounded(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new Error(`its answer is longer than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function categoryOf(categories: unknown): ScreeningCategory {
  if (categories && typeof categories === 'object') {
    const flagged = Object.entries(categories).filter(([, on]) => on === true);
    for (const [name] of flagged) {
      const hit = CATEGORY_OF.find(([prefix]) => name.startsWith(prefix));
      if (hit) return hit[1];
    }
  }
  return 'harm_or_surveillance';
}
