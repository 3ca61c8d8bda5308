import { fileURLToPath } from 'node:url';
import type { ClassifierSettings } from './classifier.js';
import { loadRulesFile, type RuleSet, type ScreeningAction, type ScreeningRule } from './screeningRules.js';

/** The rules shipped with the app; SCREENING_RULES_FILE names another. */
export const DEFAULT_RULES_FILE = fileURLToPath(
  new URL('../../../config/screening-rules.json', import.meta.url),
);

/** SCREENING_RULES_FILE, SCREENING_FREEZE_AFTER and the optional classifier (config.ts). */
export interface ScreeningSettings {
  rulesFile: string;
  /** An agent with more refusals and rejections than this in 24 hours is frozen (agentFreeze.ts). */
  freezeAfter: number;
  /** A task reported by this many distinct workers is held for an operator (taskReports.ts); default 3. */
  reportsToHold?: number;
  /** An OpenAI-moderation-compatible endpoint that may add holds; absent: off. */
  classifier?: ClassifierSettings;
}

export interface ScreeningVerdict {
  action: ScreeningAction;
  rule: Pick<ScreeningRule, 'id' | 'name' | 'category'>;
}

/** Characters that render as nothing, used to split a word so that no rule sees it. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/**
 * The text rules are matched against: compatibility forms folded (NFKC: full-width letters,
 * ligatures), lower case, ё as е, invisible characters dropped, and every run of anything that is
 * not a letter or a digit one space, with a space at each end (a pattern starts at a word start).
 * Linear in the input, which is bounded (title and description limits) before it gets here.
 */
export function normalizeForScreening(text: string): string {
  const folded = text.normalize('NFKC').toLowerCase().replace(INVISIBLE, '').replaceAll('ё', 'е');
  return ` ${folded.replace(NOT_WORD, ' ').trim()} `;
}

/** What task creation screens with (DomainContext.screening). */
export interface Screening {
  screen: Screen;
  freezeAfter: number;
  reportsToHold?: number;
  classifier?: ClassifierSettings;
  /** Told when the classifier could not answer (the task then passed on the rules alone). */
  onClassifierFailure?: (reason: string) => void;
}

/**
 * The rules in force, and where they came from. One per app; `reload` swaps the whole set at once
 * (a request sees either the old rules or the new), and keeps the old ones when the file is bad.
 */
export class Screen {
  private rules: RuleSet;
  private loaded: Date;

  constructor(
    readonly file: string,
    private readonly clock: () => Date = () => new Date(),
  ) {
    this.rules = loadRulesFile(file);
    this.loaded = clock();
  }

  /** Reads the file again; throws (leaving the rules in force) when it is unreadable or invalid. */
  reload(): { version: string; rules: number; loadedAt: string } {
    this.rules = loadRulesFile(this.file);
    this.loaded = this.clock();
    return this.status();
  }

  /** What the public policy page lists: each rule's public name and what it does. */
  publicRules(): { name: string; category: string; action: 'refuse' | 'hold' }[] {
    return this.rules.rules.map((r) => ({ name: r.name, category: r.category, action: r.action }));
  }

  status() {
    return {
      version: this.rules.version,
      rules: this.rules.rules.length,
      loadedAt: this.loaded.toISOString(),
    };
  }

  /** The strongest rule the text breaks (a refusal before a hold), or null. */
  check(...parts: (string | null | undefined)[]): ScreeningVerdict | null {
    const { any, rules } = this.rules;
    if (!any) return null;
    const text = normalizeForScreening(parts.filter(Boolean).join('\n'));
    if (!any.test(text)) return null;
    // Rare: something matched, so ask each rule (sorted refusals first) which one.
    for (const rule of rules) {
      if (rule.regex.test(text)) {
        return { action: rule.action, rule: { id: rule.id, name: rule.name, category: rule.category } };
      }
    }
    return null;
  }
}
