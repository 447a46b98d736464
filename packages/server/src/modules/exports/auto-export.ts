import type { FastifyBaseLogger } from 'fastify';
import type { DomainEvent, EventBus } from '../../bus/events.js';
import { isUniqueViolation } from '../../db/open.js';
import { transaction } from '../../db/transaction.js';
import type { AutoExportsTable, Db, Trx } from '../../db/types.js';
import { BadRequest, Conflict, RateLimited, UsageLimitsExceeded } from '../../http/errors.js';
import type { Principal } from '../../http/principal.js';
import { iso, now } from '../../lib/time.js';
import type { UsageGate } from '../billing/service.js';
import { requireRole, type ProjectsService } from '../projects/service.js';
import { autoExportStore } from './auto-export-store.js';
import type { ExportInput, ExportsService } from './service.js';

/** The options a preset holds: an export's, but those that only make sense for one session. */
export type PresetOptions = Partial<Omit<ExportInput, 'focus' | 'from_ts' | 'to_ts'>>;

/** A project's auto-export preset, as the API shows it. */
export interface AutoExportPreset {
  enabled: boolean;
  options: PresetOptions;
  /** null: never set */
  updated_at: string | null;
}

/**
 * Why each per-session option is refused in a preset: a preset is written before its sessions
 * exist, so it cannot name a participant nor a span of one session's clock.
 */
const PER_SESSION: Record<'focus' | 'from_ts' | 'to_ts', string> = {
  focus:
    'cannot be part of an auto-export preset: a preset is set before its sessions, so it cannot know their participants; leave it out (the presenter layout then follows the director) or use layout=speaker',
  from_ts:
    'cannot be part of an auto-export preset: it is a point on one session’s clock, and a preset exports every session whole',
  to_ts:
    'cannot be part of an auto-export preset: it is a point on one session’s clock, and a preset exports every session whole',
};

function present(row: AutoExportsTable | undefined): AutoExportPreset {
  if (!row) return { enabled: false, options: {}, updated_at: null };
  return {
    enabled: row.enabled === 1,
    options: JSON.parse(row.options) as PresetOptions,
    updated_at: iso(row.updated_at),
  };
}

/**
 * Per-project auto-export presets, and the rule that applies them: once a session's recording is
 * ready (`recording.ready`), a session of a project whose preset is enabled is exported with its
 * options, queued in a transaction of its own when the recording is announced, exactly as a requested export
 * (`auto: true` on its job) that ends in `export.completed` or `export.failed`. At most one
 * auto-export per session, however often and wherever the announcement is handled (a unique index
 * on the exports marked `auto` makes it so). Skipped without an error
 * for the recording: a session with nothing recorded, and (logged) an organisation that billing
 * refuses exports, as it refuses a requested one.
 */
export function autoExportService(deps: {
  db: Db;
  projects: ProjectsService;
  exports: Pick<ExportsService, 'enqueueOf'>;
  bus: EventBus;
  gate: UsageGate;
  log: FastifyBaseLogger;
}) {
  const { db, log } = deps;
  const store = autoExportStore();

  /** Queues the auto-export of a session whose recording is ready, when its project has one enabled. */
  async function exportReady(q: Db | Trx, e: DomainEvent): Promise<void> {
    const sessionId = e.sessionId;
    if (!sessionId) return;
    const preset = await store.get(q, e.projectId);
    if (!preset || preset.enabled !== 1) return;
    const options = JSON.parse(preset.options) as PresetOptions;
    try {
      await transaction(q, async (trx) => {
        const session = await store.session(trx, sessionId);
        // Deleted meanwhile, or already exported by an earlier handling of the same announcement.
        if (!session || (await store.exported(trx, sessionId))) return;
        await deps.gate.assertWithinLimits(e.orgId, 'an auto-export', { q: trx });
        const input: ExportInput = { layout: 'grid', orientation: 'landscape', ...options };
        await deps.exports.enqueueOf(trx, { ...session, org_id: e.orgId }, input, {
          where: 'body',
          auto: true,
        });
      });
    } catch (err) {
      // Another process queued it first (the index allows one auto-export per session).
      if (isUniqueViolation(err)) return;
      // Nothing (or, for the sound alone, no microphone) recorded: nothing to export.
      if (err instanceof Conflict) {
        log.info({ session: sessionId, reason: err.message }, 'auto-export skipped');
        return;
      }
      // The organisation has as many exports queued as it may: an auto-export counts like any other.
      if (err instanceof RateLimited) {
        log.warn(
          { session: sessionId, reason: err.message },
          'auto-export skipped: the export queue is full',
        );
        return;
      }
      if (err instanceof UsageLimitsExceeded) {
        log.warn({ session: sessionId, reason: err.message }, 'auto-export skipped: billing refused it');
        return;
      }
      // Anything else must not fail the announcement, unless its transaction is broken anyway.
      log.error({ err, session: sessionId }, 'auto-export failed');
      if (q.isTransaction) throw err;
    }
  }
  deps.bus.onTransactional('recording.ready', exportReady);

  return {
    /** The project's preset (never set: disabled, no options). Any role may read it. */
    async get(principal: Principal, projectId: string): Promise<AutoExportPreset> {
      const project = await deps.projects.scope(principal, { projectId });
      return present(await store.get(db, project.id));
    },

    /**
     * Replaces the project's preset. Admins and owners (and the project's API keys) only; 400
     * naming `body.options.{field}` for an option that belongs to one session.
     */
    async set(
      principal: Principal,
      projectId: string,
      input: { enabled: boolean; options: PresetOptions & Partial<ExportInput> },
    ): Promise<AutoExportPreset> {
      const project = await deps.projects.scope(principal, { projectId });
      requireRole(principal, 'admin');
      for (const field of ['focus', 'from_ts', 'to_ts'] as const)
        if (input.options[field] !== undefined)
          throw new BadRequest(`body.options.${field} ${PER_SESSION[field]}`);
      const row: AutoExportsTable = {
        project_id: project.id,
        enabled: input.enabled ? 1 : 0,
        options: JSON.stringify(input.options),
        updated_at: now(),
      };
      await store.put(db, row);
      return present(row);
    },
  };
}
export type AutoExportService = ReturnType<typeof autoExportService>;
