import { formatDuration } from '../../ui/format';
import { Empty } from '../../ui/kit';
import type { Manifest } from '../../types';

const KIND_LABEL = { cam: 'camera', mic: 'microphone', screen: 'screen share' } as const;

/** Who was recorded and which tracks, with each track's length. */
export function ManifestSummary({ manifest }: { manifest: Manifest }) {
  if (manifest.participants.length === 0)
    return (
      <Empty title="Nothing recorded yet">Media appears here once someone publishes in the session.</Empty>
    );
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">Recorded participants and their tracks</caption>
        <thead>
          <tr>
            <th scope="col">Participant</th>
            <th scope="col">Tracks</th>
          </tr>
        </thead>
        <tbody>
          {manifest.participants.map((p) => (
            <tr key={p.user_id}>
              <th scope="row" className="participant">
                {p.display_name || p.user_id}
                {p.display_name && p.display_name !== p.user_id ? (
                  <small className="muted mono participant-id">{p.user_id}</small>
                ) : null}
              </th>
              <td>
                <ul className="tracks">
                  {p.tracks.map((t) => (
                    <li key={t.stream_id}>
                      {KIND_LABEL[t.kind]}{' '}
                      <span className="muted">{formatDuration(t.end_ts - t.start_ts)}</span>
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted total">Recording length {formatDuration(manifest.end_ts - manifest.start_ts)}</p>
    </div>
  );
}
