/**
 * An account, an API key of its Default project and one session, made through the real API as
 * a user would: the one bootstrap every benchmark uses.
 */
import { expectCall } from './http.ts';

export interface BenchTenant {
  projectId: string;
  /** the API key's secret */
  secret: string;
  /** `{ authorization: 'Bearer …' }` */
  auth: Record<string, string>;
  sessionId: string;
}

export async function benchTenant(base: string, name: string): Promise<BenchTenant> {
  const register = await expectCall<{ data: { project_id: string } }>(201, `${base}/v1/auth/register`, {
    method: 'POST',
    json: { email: `bench-${name}-${Date.now()}@example.com`, password: 'bench-password-1234' },
  });
  const cookie = register.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('service_session='));
  if (!cookie) throw new Error('register set no service_session cookie');
  const projectId = register.json.data.project_id;
  const key = await expectCall<{ data: { secret: string } }>(
    201,
    `${base}/v1/projects/${projectId}/api-keys`,
    {
      method: 'POST',
      headers: { cookie },
      json: { label: `${name} bench` },
    },
  );
  const secret = key.json.data.secret;
  const auth = { authorization: `Bearer ${secret}` };
  const session = await expectCall<{ data: { id: string } }>(201, `${base}/v1/sessions`, {
    method: 'POST',
    headers: auth,
    json: { name: `${name} bench` },
  });
  return { projectId, secret, auth, sessionId: session.json.data.id };
}
