import type { Config } from '../config.js';
import type { EventBus } from '../bus/events.js';
import type { Idempotency } from '../http/idempotency.js';
import type { RouteAuth } from '../http/principal.js';
import type { AccountsService } from './accounts/service.js';
import type { InvitationsService } from './invitations/service.js';
import type { KeysService } from './keys/service.js';
import type { MembersService } from './members/service.js';
import type { ProjectsService } from './projects/service.js';
import type { SessionsService } from './sessions/service.js';
import type { Database } from '../db/open.js';
import type { StorageWatch } from '../db/storage-watch.js';
import type { StreamStore } from '../streams/store.js';
import type { SessionHub } from './live/hub.js';
import type { LiveService } from './live/service.js';
import type { RecordingsService } from './recordings/service.js';
import type { WebhooksService } from './webhooks/service.js';
import type { ExportsService } from './exports/service.js';

/** Every capability's service, built once per app in dependency order (app.ts). */
export interface Services {
  accounts: AccountsService;
  members: MembersService;
  projects: ProjectsService;
  keys: KeysService;
  sessions: SessionsService;
  invitations: InvitationsService;
  live: LiveService;
  recordings: RecordingsService;
  webhooks: WebhooksService;
  exports: ExportsService;
}

/** What route plugins receive: configuration, services and the edge's shared helpers. */
export interface RouteDeps {
  config: Config;
  database: Database;
  storage: StorageWatch;
  bus: EventBus;
  idempotency: Idempotency;
  services: Services;
  streams: StreamStore;
  hub: SessionHub;
}

/** Routes for dashboard users only. */
export const USER_ONLY: RouteAuth = { accept: ['user'] };
/** "API key (project)" routes; the dashboard cookie is accepted wherever an API key is (decisions §1). */
export const KEY_OR_USER: RouteAuth = { accept: ['api_key', 'user'] };
/** The four routes a restricted key may use (interface §5). */
export const KEY_USER_OR_RESTRICTED: RouteAuth = { accept: ['api_key', 'user', 'restricted_key'] };
