import { useEffect } from 'react';
import { Link, useParams } from 'wouter';
import { isStatus, vss } from '../api';
import { useAuth } from '../auth';
import { sessionHosts } from '@vss/sdk';
import { manifestNames, sessionState, type Session } from '../types';
import { formatTime } from '../ui/format';
import { useLoad } from '../ui/hooks';
import { ErrorNote, Loading, PageHeader } from '../ui/kit';
import { SessionStateBadge } from '../ui/session-badge';
import { DeleteSession, RedactPanel } from './session-detail/danger-zone';
import { useExportJobs } from './session-detail/export-jobs';
import { ExportPanel } from './session-detail/export-panel';
import { JoinLinks } from './session-detail/join-links';
import { ManifestSummary } from './session-detail/manifest-summary';
import { RecordingRules } from './session-detail/recording-rules';
import { ReplayLinks, Visibility } from './session-detail/sharing';
import './session-detail/session-detail.css';

/** How often the session (and, while live, its manifest) is read again, so its state follows. */
const REFRESH_MS = 4000;

/** Reads the session; null when there is none (a wrong address, or deleted meanwhile). */
async function readSession(id: string, signal: AbortSignal): Promise<Session | null> {
  try {
    return await vss.get('/v1/sessions/{sessionId}', { params: { path: { sessionId: id } }, signal });
  } catch (err) {
    if (isStatus(err, 404)) return null;
    throw err;
  }
}

/** One session: state, recording, sharing, export to MP4, redaction and deletion. */
export function SessionDetailPage() {
  const { sessionId = '' } = useParams<{ sessionId: string }>();
  const { me } = useAuth();
  const session = useLoad((signal) => readSession(sessionId, signal), [sessionId]);
  const manifest = useLoad(
    (signal) => vss.get('/v1/sessions/{sessionId}/manifest', { params: { path: { sessionId } }, signal }),
    [sessionId],
  );
  const exports = useExportJobs(sessionId);
  const state = session.data ? sessionState(session.data) : undefined;
  const missing = session.data === null;

  const { reload: reloadSession } = session;
  const { reload: reloadManifest } = manifest;
  // Other failures (the network, the server) are read again: they may pass.
  useEffect(() => {
    if (state === 'ended' || missing) return;
    const t = setInterval(() => {
      reloadSession();
      reloadManifest();
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [state, missing, reloadSession, reloadManifest]);
  // The manifest is read once more when the session ends: its last tracks are complete then.
  useEffect(() => {
    if (state === 'ended') reloadManifest();
  }, [state, reloadManifest]);

  if (missing)
    return (
      <>
        <p>
          <Link href="/sessions">← Sessions</Link>
        </p>
        <PageHeader
          title="Session not found"
          sub="There is no session at this address: it may have been deleted."
        />
      </>
    );
  if (!session.data)
    return session.error ? <ErrorNote error={session.error} /> : <Loading label="Loading session…" />;
  const s = session.data;
  const st = sessionState(s);
  const participants = manifest.data?.participants.map((p) => p.user_id) ?? [];
  const names = manifestNames(manifest.data);
  const recorded = participants.length > 0;
  // The session's creator and the organisation's admins change what it records.
  const canChange = !!me && (s.created_by === me.id || me.role === 'owner' || me.role === 'admin');
  return (
    <div className="session-page">
      <p>
        <Link href="/sessions">← Sessions</Link>
      </p>
      <PageHeader
        title={s.name || 'Untitled session'}
        sub={
          <>
            <SessionStateBadge state={st} /> <span className="mono">{s.id}</span>
          </>
        }
      >
        {st !== 'ended' ? (
          <Link className="button" href={`/sessions/${s.id}/live`}>
            Join live
          </Link>
        ) : null}
        {recorded ? (
          <Link className="button secondary" href={`/sessions/${s.id}/replay`}>
            Replay
          </Link>
        ) : null}
      </PageHeader>
      <ErrorNote error={session.error} />
      <dl className="facts">
        <div>
          <dt>Created</dt>
          <dd>{formatTime(s.created_at)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(s.started_at)}</dd>
        </div>
        <div>
          <dt>Ended</dt>
          <dd>{formatTime(s.ended_at)}</dd>
        </div>
      </dl>

      {st !== 'ended' && canChange ? <JoinLinks sessionId={s.id} /> : null}
      <RecordingRules
        sessionId={s.id}
        started={s.started_at !== null}
        ended={st === 'ended'}
        canChange={canChange}
        names={names}
        hosts={sessionHosts(s.created_by)}
      />

      <section aria-labelledby="recording-title">
        <h2 id="recording-title">Recording</h2>
        <ErrorNote error={manifest.error} />
        {manifest.data ? <ManifestSummary manifest={manifest.data} /> : manifest.error ? null : <Loading />}
      </section>

      <Visibility session={s} canChange={canChange} onChange={() => reloadSession()} />
      {canChange ? <ReplayLinks sessionId={s.id} /> : null}
      {recorded ? (
        <ExportPanel sessionId={s.id} participants={participants} names={names} exports={exports} />
      ) : null}
      {canChange ? (
        <>
          <RedactPanel
            sessionId={s.id}
            participants={participants}
            names={names}
            onDone={() => {
              reloadManifest();
              exports.refresh();
            }}
          />
          <DeleteSession sessionId={s.id} name={s.name} />
        </>
      ) : (
        <p className="muted" id="host-only">
          Join links, replay links, visibility, redaction and deleting this session are for its host (the
          member who created it) and the organisation&apos;s admins.
        </p>
      )}
    </div>
  );
}
