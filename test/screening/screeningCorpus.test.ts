import { describe, expect, it } from 'vitest';
import { DEFAULT_RULES_FILE, Screen } from '../../src/domain/trust/screening.js';
import { ALLOWED_EN, FLAGGED_EN } from './corpusEn.js';
import { ALLOWED_RU, FLAGGED_RU } from './corpusRu.js';

const screen = new Screen(DEFAULT_RULES_FILE);

describe.each([
  ['English', FLAGGED_EN, ALLOWED_EN],
  ['Russian', FLAGGED_RU, ALLOWED_RU],
])('the shipped rules on the %s corpus', (_language, flagged, allowed) => {
  it('has at least 60 examples of each kind', () => {
    expect(flagged.length).toBeGreaterThanOrEqual(60);
    expect(allowed.length).toBeGreaterThanOrEqual(60);
  });

  it('refuses or holds every flagged example', () => {
    const missed = flagged.filter((text) => screen.check(text) === null);
    expect(missed).toEqual([]);
  });

  it('lets every allowed example through', () => {
    const caught = allowed
      .map((text) => ({ text, verdict: screen.check(text) }))
      .filter((r) => r.verdict !== null)
      .map((r) => `${r.text} -> ${r.verdict?.rule.id}`);
    expect(caught).toEqual([]);
  });
});
