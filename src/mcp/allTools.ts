import { accountTools } from './accountTools.js';
import { batchTools } from './batchTools.js';
import { disputeTools } from './disputeTools.js';
import { reviewTools } from './reviewTools.js';
import { taskTools } from './taskTools.js';

/** Every tool, in the order clients list them. */
export const ALL_TOOLS = [...taskTools, ...batchTools, ...reviewTools, ...disputeTools, ...accountTools];
