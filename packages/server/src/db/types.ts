import type { Kysely, Transaction } from 'kysely';
import type {
  AgentActivityTable,
  AgentTokensTable,
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  OAuthSpentCodesTable,
  OAuthSpentRefreshTable,
} from './agent-tables.js';

export type * from './agent-tables.js';

/** Timestamps are stored as integer milliseconds since 1970 on both engines; booleans as 0/1. */
export interface OrgsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  org_id: string;
  role: string;
  created_at: number;
}

export interface UserSessionsTable {
  /** HMAC of the cookie value: the cookie itself is never stored. */
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  environment: string | null;
  created_at: number;
  /** JSON array of the origins that may frame the project's prebuilt room */
  embed_origins: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  project_id: string;
  kind: string;
  label: string | null;
  prefix: string;
  secret_hash: string;
  created_at: number;
  last_used_at: number | null;
}

export interface SessionsTable {
  id: string;
  project_id: string;
  name: string;
  created_by: string;
  is_public: number;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
}

export interface InvitationsTable {
  id: string;
  org_id: string;
  project_id: string;
  email: string;
  role: string;
  token_hash: string;
  created_by: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_by: string | null;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: number;
}

/** One live connection to a session: presence across processes, and the evidence for ending it. */
export interface SessionMembersTable {
  conn_id: string;
  session_id: string;
  user_id: string;
  node_id: string;
  joined_at: number;
  heartbeat_at: number;
  left_at: number | null;
  /** the name the connection joined with (null: none given, the user_id is shown) */
  display_name: string | null;
  /** the kind of credential its token came from (null: written before this was kept) */
  credential?: string | null;
}

/** A session's invitation to people without an account; its token is kept only as a hash. */
export interface JoinLinksTable {
  id: string;
  session_id: string;
  project_id: string;
  token_hash: string;
  /** 1: guests may publish media; 0: they watch and chat */
  can_publish: number;
  max_uses: number | null;
  uses: number;
  created_at: number;
  expires_at: number;
}

/** A session's recording rules (JSON array) and, while paused, since when (ms). */
export interface RecordingControlsTable {
  session_id: string;
  rules: string;
  paused_at: number | null;
  updated_at: number;
}

/** A project's auto-export preset (modules/exports). */
export interface AutoExportsTable {
  project_id: string;
  enabled: number;
  /** the export options, JSON */
  options: string;
  updated_at: number;
}

/** A session's storyboard: a sprite of thumbnails (modules/exports). */
export interface StoryboardsTable {
  session_id: string;
  /** `queued`, `completed` or `failed` */
  status: string;
  interval_ms: number;
  columns: number;
  tile_w: number;
  tile_h: number;
  count: number;
  error: string | null;
  created_at: number;
  completed_at: number | null;
}

/** A participant removed from a live session: their tokens issued before `removed_at` are refused. */
export interface RemovalsTable {
  session_id: string;
  user_id: string;
  removed_at: number;
}

/** A replay link: its token is kept only as an HMAC. */
export interface ReplayLinksTable {
  id: string;
  session_id: string;
  project_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
}

/** A participant whose media was redacted from a session (and is refused from then on). */
export interface RedactionsTable {
  session_id: string;
  user_id: string;
  created_at: number;
}

/** A durable job (jobs/queue.ts): claimed with a lease, retried on its kind's schedule. */
export interface JobsTable {
  id: string;
  kind: string;
  /** JSON */
  payload: string;
  group_key: string | null;
  /** `queued`, `running` or `failed` (a job that succeeded is deleted) */
  status: string;
  run_at: number;
  attempts: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface WebhooksTable {
  id: string;
  project_id: string;
  url: string;
  /** JSON array of event types */
  events: string;
  is_active: number;
  description: string | null;
  secret_sealed: string;
  created_at: number;
  updated_at: number;
}

export interface WebhookEventsTable {
  id: string;
  project_id: string;
  type: string;
  body: string;
  created_at: number;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: number;
  next_attempt_at: number | null;
  /** the delivery this row sends again (a redelivery, made once at a person's request), else null */
  redelivery_of: string | null;
}

/** An MP4 export (modules/exports): the job's request, state and result. */
export interface ExportsTable {
  id: string;
  org_id: string;
  project_id: string;
  session_id: string;
  /** `queued`, `processing`, `completed` or `failed` */
  status: string;
  layout: string;
  orientation: string;
  focus: string | null;
  /** 1: the paused spans are kept in the MP4; 0: cut out */
  keep_gaps: number;
  /** a clip's span, ms since 1970 (`to_ts` exclusive); null: from the start, to the end */
  from_ts: number | null;
  to_ts: number | null;
  /** `mp4` or `m4a` */
  format: string;
  /** `720p` or `1080p` */
  resolution: string;
  /** 1: name bars drawn on the tiles' video */
  names: number;
  /** 1: made by the project's auto-export, not asked for */
  auto: number;
  attempts: number;
  /** thousandths */
  progress: number;
  error: string | null;
  /** the end of ffmpeg's log, for a failed render */
  error_log: string | null;
  size_bytes: number | null;
  duration_ms: number | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
}

/** A metered amount (modules/billing): participant-minutes, or a change of stored bytes. */
export interface UsageRecordsTable {
  id: string;
  org_id: string;
  project_id: string;
  session_id: string;
  usage_type: string;
  value: number;
  dedupe_key: string;
  /** recorded_at */
  created_at: number;
}

/** A session's stored bytes (recording and exports) as last recorded in usage_records. */
export interface StorageLevelsTable {
  session_id: string;
  org_id: string;
  project_id: string;
  bytes: number;
  updated_at: number;
}

/** A payment-provider customer of an organisation (project_key '') or of one of its projects. */
export interface BillingCustomersTable {
  customer_id: string;
  org_id: string;
  project_key: string;
  created_at: number;
}

/** A subscription at the payment provider, as its last applied event left it. */
export interface BillingSubscriptionsTable {
  id: string;
  org_id: string;
  customer_id: string;
  status: string;
  event_at: number;
}

/** A payment-provider event already applied (applied once, by id). */
export interface BillingEventsTable {
  id: string;
  type: string;
  created_at: number;
}

/** Every table of the metadata database. */
export interface Tables {
  orgs: OrgsTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  idempotency_keys: IdempotencyKeysTable;
  session_members: SessionMembersTable;
  replay_links: ReplayLinksTable;
  join_links: JoinLinksTable;
  removals: RemovalsTable;
  recording_controls: RecordingControlsTable;
  auto_exports: AutoExportsTable;
  storyboards: StoryboardsTable;
  redactions: RedactionsTable;
  jobs: JobsTable;
  webhooks: WebhooksTable;
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  exports: ExportsTable;
  usage_records: UsageRecordsTable;
  storage_levels: StorageLevelsTable;
  billing_customers: BillingCustomersTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_events: BillingEventsTable;
  agent_tokens: AgentTokensTable;
  agent_activity: AgentActivityTable;
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  oauth_grants: OAuthGrantsTable;
  oauth_spent_refresh: OAuthSpentRefreshTable;
  oauth_spent_codes: OAuthSpentCodesTable;
}

/**
 * The query handle every store takes: the database itself or a transaction of it. A function that
 * reads or writes with its caller's handle takes it first; an optional one goes in trailing options.
 */
export type Db = Kysely<Tables>;
export type Trx = Transaction<Tables>;
export type Engine = 'sqlite' | 'postgres';
