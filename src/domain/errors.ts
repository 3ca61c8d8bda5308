/**
 * Rule violations the domain reports. The HTTP layer maps each kind to its status code; the
 * message is written for the caller and says what to do. Extra fields go into the JSON body.
 */
export type DomainErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payment_required'
  | 'unprocessable'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited';

export class DomainError extends Error {
  constructor(
    readonly kind: DomainErrorKind,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export interface FieldProblem {
  path: string;
  message: string;
}

export const invalid = (path: string, message: string): DomainError =>
  new DomainError('validation', 'Validation failed', {
    details: [{ path, message }] satisfies FieldProblem[],
  });
export const notFound = (what: string): DomainError => new DomainError('not_found', `${what} not found`);
export const accessDenied = (): DomainError => new DomainError('forbidden', 'Access denied');
export const conflict = (message: string, extra: Record<string, unknown> = {}): DomainError =>
  new DomainError('conflict', message, extra);

/**
 * An invariant that must hold whatever the input; a failure is a bug. Thrown inside a database
 * transaction it rolls the whole change back, so a broken rule cannot commit money.
 */
export function assertInvariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Invariant violated: ${message}`);
}
