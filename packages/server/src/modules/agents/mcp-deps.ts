import type { Db } from '../../db/types.js';
import type { BillingService } from '../billing/service.js';
import type { ExportsService } from '../exports/service.js';
import type { LiveService } from '../live/service.js';
import type { RecordingsService } from '../recordings/service.js';
import type { SessionsService } from '../sessions/service.js';
import type { AgentsService } from './service.js';

/** What the MCP tools act through: the same services, rules and tenancy as the REST API. */
export interface McpDeps {
  db: Db;
  version: string;
  agents: AgentsService;
  sessions: SessionsService;
  recordings: RecordingsService;
  exports: ExportsService;
  live: LiveService;
  billing: BillingService;
}
