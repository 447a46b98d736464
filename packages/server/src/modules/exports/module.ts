import type { Core } from '../../core.js';
import type { BillingService } from '../billing/service.js';
import type { LiveEvents } from '../live/service.js';
import type { ProjectsService } from '../projects/service.js';
import type { RecordingsService } from '../recordings/service.js';
import type { SessionsService } from '../sessions/service.js';
import { autoExportService, type AutoExportService } from './auto-export.js';
import { findFfmpeg } from './ffmpeg.js';
import { exportFiles } from './files.js';
import { renderJob } from './jobs.js';
import { exportsService, type ExportsService } from './service.js';
import { storyboardsService, type StoryboardsService } from './storyboard-jobs.js';
import { exportsStore } from './store.js';

/** The exports module, built: exports on request, auto-exports, storyboards. */
export interface ExportsModule {
  exports: ExportsService;
  autoExport: AutoExportService;
  storyboards: StoryboardsService;
}

/**
 * The exports module over the core: its files (the bucket, else DATA_DIR), ffmpeg, the render job,
 * auto-exports and storyboards (both on `recording.ready`). Its files count in a session's stored
 * bytes (billing), and what it made of a recording goes with it: exports are withdrawn after a
 * redaction and deleted with the session, then the storyboard is made again or deleted.
 */
export function exportsModule(
  core: Core,
  peers: {
    projects: ProjectsService;
    sessions: SessionsService;
    hub: LiveEvents;
    billing: BillingService;
    recordings: RecordingsService;
  },
): ExportsModule {
  const { config, log, db } = core;
  const { projects, sessions, billing, recordings } = peers;
  const files = exportFiles(config.dataDir, core.blobs);
  const ffmpeg = findFfmpeg(config, log)?.path ?? null;
  const store = exportsStore(db);
  const exports = exportsService({
    ...core,
    files,
    store,
    sessions,
    projects,
    live: peers.hub,
    gate: billing.gate,
    storageChanged: (sessionId) => billing.syncStorage(sessionId),
  });
  core.jobs.register(renderJob({ ...core, ffmpeg, store, files }));
  billing.countStored((q, sessionId) => exports.storedBytes(q, sessionId));
  const autoExport = autoExportService({ ...core, projects, exports, gate: billing.gate });
  const storyboards = storyboardsService({ ...core, ffmpeg, sessions, recordings });
  // The exports first: what still shows a redacted person must go, whatever the storyboard does.
  recordings.keepsDerived({
    deleted: (id) => exports.deleteOfSession(id),
    redacted: (id, user) => exports.withdrawAfterRedaction(id, user),
  });
  recordings.keepsDerived({
    deleted: (id) => storyboards.deleteOfSession(id),
    redacted: (id) => storyboards.remake(id),
  });
  return { exports, autoExport, storyboards };
}
