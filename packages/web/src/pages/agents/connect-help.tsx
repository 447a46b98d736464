import { CopyButton } from '../../ui/kit';

/** How to point an MCP client at this server: the endpoint, a config snippet, and OAuth. */
export function ConnectHelp() {
  const endpoint = `${location.origin}/mcp`;
  const config = JSON.stringify(
    { mcpServers: { vss: { type: 'http', url: endpoint, headers: { Authorization: 'Bearer sat_…' } } } },
    null,
    2,
  );
  return (
    <section className="card" aria-labelledby="connect-title">
      <h2 id="connect-title">Connect an MCP client</h2>
      <p>
        Agents use vss through its Model Context Protocol endpoint (Streamable HTTP). It accepts agent tokens
        and OAuth access tokens, never API keys.
      </p>
      <div className="row">
        <code className="secret-value">{endpoint}</code>
        <CopyButton text={endpoint} label="Copy URL" />
      </div>
      <p>With an agent token (create one below), for example:</p>
      <pre className="snippet">
        <code>{config}</code>
      </pre>
      <CopyButton text={config} label="Copy configuration" />
      <p className="muted">
        Clients that support OAuth need no token: give them the URL alone; they register themselves and send
        you to a consent page, and what you allowed is listed under “OAuth grants” below.
      </p>
    </section>
  );
}
