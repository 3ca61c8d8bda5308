import type { DomainContext } from '../context.js';
import { DomainError } from '../errors.js';

/**
 * POST /admin/screening/reload and SIGHUP: the instance reads its rules file again. A file that
 * cannot be read or breaks a check changes nothing (Screen.reload swaps the rules only once the
 * whole file compiled): the answer is a 400 saying what to fix and which rules stay in force.
 * Each instance holds its own rules, so with several instances each must be told (docs/operating.md).
 */
export function reloadScreeningRules(ctx: DomainContext) {
  const screen = ctx.screening?.screen;
  if (!screen) throw new DomainError('conflict', 'Screening is not configured on this instance');
  try {
    return { file: screen.file, ...screen.reload() };
  } catch (error) {
    const kept = screen.status();
    throw new DomainError(
      'validation',
      `The rules file was not loaded: ${(error as Error).message}. Fix the file and reload again; until then the rules loaded at ${kept.loadedAt} (version ${kept.version}, ${kept.rules} rules) stay in force`,
      { kept },
    );
  }
}
