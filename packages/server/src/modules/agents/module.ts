import type { Core } from '../../core.js';
import type { ProjectsService } from '../projects/service.js';
import { oauthService, type OAuthService } from './oauth.js';
import { oauthStore } from './oauth-store.js';
import { agentsService, type AgentsService } from './service.js';
import { agentsStore } from './store.js';

/** The agents module over the core: agent tokens, and OAuth 2.1 for MCP clients. */
export function agentsModule(
  core: Core,
  peers: { projects: ProjectsService },
): { agents: AgentsService; oauth: OAuthService } {
  return {
    agents: agentsService({ ...core, store: agentsStore(core.db), projects: peers.projects }),
    oauth: oauthService({ ...core, store: oauthStore(core.db), projects: peers.projects }),
  };
}
