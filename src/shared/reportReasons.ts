/**
 * Why a worker reports a task (issue 39), in the order the Mini App offers them. Shared by the
 * server (src/domain/workers/protection.ts validates against it) and the Mini App (its report
 * sheet), so the two lists cannot drift.
 */
export const REPORT_REASONS = [
  'dangerous',
  'illegal',
  'surveillance_or_harassment',
  'scam_or_fraud',
  'sexual_content',
  'personal_data',
  'spam',
  'other',
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
