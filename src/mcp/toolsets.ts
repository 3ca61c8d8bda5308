/**
 * Groups of MCP tools a client may choose, so a model reads only the tools it needs
 * (`/mcp?toolsets=tasks,chat`, or HANDOFF_MCP_TOOLSETS for the stdio server); without a choice a
 * client gets every tool. Every tool is in exactly one toolset: the catalog refuses to start
 * otherwise, so a new tool is added here too.
 */
export const TOOLSETS = {
  tasks: {
    about:
      'Post tasks (one or a batch) and see them through: create, follow, hire an applicant, complete (pays), bonus, cancel, refund',
    tools: [
      'create_task',
      'get_task',
      'list_tasks',
      'update_task_status',
      'complete_task',
      'cancel_task',
      'refund_task',
      'list_applications',
      'accept_application',
      'create_batch',
      'get_batch',
      'cancel_batch',
      'pay_bonus',
    ],
  },
  workers: {
    about: 'Find workers to offer a task to, and rate them afterwards',
    tools: ['search_workers', 'get_worker', 'rate_worker', 'get_task_ratings'],
  },
  review: {
    about: 'Review submitted work: list submissions, ask for a revision, dispute',
    tools: ['list_submissions', 'request_revision', 'open_dispute', 'add_dispute_statement'],
  },
  chat: {
    about: 'Talk with the assigned worker and share files',
    tools: ['list_chats', 'get_messages', 'send_message', 'upload_file'],
  },
  webhooks: {
    about: 'Where events are posted, the delivery log, redelivery and quarantined endpoints',
    tools: [
      'configure_webhook',
      'test_webhook',
      'list_webhook_deliveries',
      'redeliver_webhook',
      'list_webhook_endpoints',
      'resume_webhook_endpoints',
    ],
  },
  account: {
    about: 'Your profile, balances in TON and USDT, deposits, ledger and platform statistics',
    tools: [
      'get_agent_profile',
      'update_agent_profile',
      'get_deposit_info',
      'list_transactions',
      'get_platform_stats',
    ],
  },
} as const satisfies Record<string, { about: string; tools: readonly string[] }>;

export type Toolset = keyof typeof TOOLSETS;
export const TOOLSET_NAMES = Object.keys(TOOLSETS) as Toolset[];

/** The toolset a tool belongs to, or undefined for a tool no toolset lists. */
export function toolsetOf(toolName: string): Toolset | undefined {
  return TOOLSET_NAMES.find((set) => (TOOLSETS[set].tools as readonly string[]).includes(toolName));
}

/** A choice of toolsets nobody can make: the message says which names exist. */
export class ToolsetError extends Error {}

/**
 * `tasks,chat` -> those toolsets; absent or blank -> every toolset (`all` says the same).
 * Throws ToolsetError naming the unknown ones and the choices.
 */
export function parseToolsets(raw: string | undefined): ReadonlySet<Toolset> | 'all' {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return 'all';
  if (raw.length > 200) throw new ToolsetError('toolsets is too long: name at most the toolsets there are');
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(TOOLSET_NAMES as string[]).includes(name));
  if (unknown.length) {
    throw new ToolsetError(
      `Unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n.slice(0, 40)}"`).join(', ')}; ` +
        `choose from ${TOOLSET_NAMES.join(', ')} (comma-separated), or leave it out for every tool`,
    );
  }
  return new Set(names as Toolset[]);
}
