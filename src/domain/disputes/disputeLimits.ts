/** Limits of disputes (docs/decisions/disputes.md): each is enforced in the schema and the domain. */
export const DISPUTE_REASON_MAX = 2000;
export const STATEMENT_TEXT_MAX = 4000;
export const STATEMENT_ATTACHMENTS_MAX = 10;
/** Statements per side and dispute: enough to answer each other, bounded so a page stays small. */
export const STATEMENTS_PER_SIDE_MAX = 20;
/** Chat messages GET /admin/disputes/:id shows (the newest, in order); more is flagged. */
export const ADMIN_CHAT_MESSAGES_MAX = 1000;
