import { vss } from '../api';
import { PageHeader } from '../ui/kit';
import { KeySection, type KeyKind } from './keys/key-section';

const API_KEYS: KeyKind = {
  noun: 'API key',
  list: '/v1/api-keys',
  create: (projectId, label) =>
    vss.post('/v1/projects/{projectId}/api-keys', { params: { path: { projectId } }, body: { label } }),
  relabel: (keyId, label) =>
    vss.patch('/v1/api-keys/{keyId}', { params: { path: { keyId } }, body: { label } }),
  remove: (keyId) => vss.delete('/v1/api-keys/{keyId}', { params: { path: { keyId } } }),
};

const RESTRICTED_KEYS: KeyKind = {
  noun: 'restricted key',
  list: '/v1/restricted-keys',
  create: (projectId, label) => vss.post('/v1/restricted-keys', { body: { project_id: projectId, label } }),
  relabel: (keyId, label) =>
    vss.patch('/v1/restricted-keys/{keyId}', { params: { path: { keyId } }, body: { label } }),
  remove: (keyId) => vss.delete('/v1/restricted-keys/{keyId}', { params: { path: { keyId } } }),
};

/** The organisation's API keys and restricted keys: create (secret shown once), rename, delete. */
export function KeysPage() {
  return (
    <>
      <PageHeader
        title="API keys"
        sub={
          <>
            Send a key as <code>Authorization: Bearer &lt;key&gt;</code>. Secrets are shown once when created
            and stored only as a hash: keep them on your servers, never in a web page or an app.
          </>
        }
      />
      <KeySection kind={API_KEYS} title="Project API keys">
        <p className="muted">
          <code>sk_live_…</code> keys do everything the API offers on their project (sessions, recordings,
          exports, webhooks, usage) and manage the organisation with admin rights (keys, members, projects).
        </p>
      </KeySection>
      <KeySection kind={RESTRICTED_KEYS} title="Restricted keys">
        <p className="muted">
          <code>rk_live_…</code> keys may only create sessions, request connection tokens (live and replay)
          and read manifests, in one project; every other route refuses them. Use one where a full key would
          be too much, for example in a service that only starts calls.
        </p>
      </KeySection>
    </>
  );
}
