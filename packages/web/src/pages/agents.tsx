import { usePagedList } from '../ui/hooks';
import { PageHeader } from '../ui/kit';
import { ActivityLog } from './agents/activity';
import { AgentTokens } from './agents/agent-tokens';
import { ConnectHelp } from './agents/connect-help';
import { clientName, OAuthGrants } from './agents/oauth-grants';
import './agents/agents.css';

/** AI agents: how to connect one, agent tokens, OAuth grants, and every tool call they made. */
export function AgentsPage() {
  const tokens = usePagedList('/v1/agent-tokens', { params: { query: { limit: 100 } } });
  const grants = usePagedList('/v1/oauth/grants', { params: { query: { limit: 100 } } });
  // The log names actors by id: said here by the token's label or the application's name when known.
  const actorName = (actor: string) => {
    const [kind, id] = actor.split(':');
    if (kind === 'agent_token') {
      const t = tokens.items.find((x) => x.id === id);
      return t ? `token ${t.label ?? t.prefix}` : `agent token ${id?.slice(0, 8)}`;
    }
    const g = grants.items.find((x) => x.id === id);
    // Grants of other users, and revoked ones, are not listed to this user.
    return g ? `${clientName(g)} (OAuth)` : `OAuth grant ${id?.slice(0, 8)}`;
  };
  return (
    <>
      <PageHeader
        title="Agents"
        sub="AI agents and assistants that use vss through the Model Context Protocol."
      />
      <ConnectHelp />
      <AgentTokens list={tokens} />
      <OAuthGrants list={grants} />
      <ActivityLog actorName={actorName} />
    </>
  );
}
