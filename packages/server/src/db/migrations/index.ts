import type { Migration } from 'kysely';
import type { Engine } from '../types.js';
import { coreMigration } from './001-core.js';
import { liveMigration } from './002-live.js';
import { recordingsMigration } from './003-recordings.js';
import { jobsWebhooksMigration } from './004-jobs-webhooks.js';
import { exportsMigration } from './005-exports.js';
import { usageMigration } from './006-usage.js';
import { agentsMigration } from './007-agents.js';
import { segmentsMigration } from './008-segments.js';
import { oauthSpentCodesMigration } from './009-oauth-spent-codes.js';
import { guestsMigration } from './010-guests.js';
import { recordingControlsMigration } from './011-recording-controls.js';
import { webhookRedeliveryMigration } from './012-webhook-redelivery.js';
import { exportKeepGapsMigration } from './013-export-keep-gaps.js';
import { exportOptionsMigration } from './014-export-options.js';
import { liveCredentialsMigration } from './015-live-credentials.js';
import { embedOriginsMigration } from './016-embed-origins.js';

/** Every migration in order. Names sort lexically; never rename or edit one that has shipped. */
export function migrations(engine: Engine): Record<string, Migration> {
  return {
    '001-core': coreMigration(engine),
    '002-live': liveMigration(engine),
    '003-recordings': recordingsMigration(engine),
    '004-jobs-webhooks': jobsWebhooksMigration(),
    '005-exports': exportsMigration(),
    '006-usage': usageMigration(engine),
    '007-agents': agentsMigration(),
    '008-segments': segmentsMigration(engine),
    '009-oauth-spent-codes': oauthSpentCodesMigration(),
    '010-guests': guestsMigration(),
    '011-recording-controls': recordingControlsMigration(),
    '012-webhook-redelivery': webhookRedeliveryMigration(),
    '013-export-keep-gaps': exportKeepGapsMigration(),
    '014-export-options': exportOptionsMigration(),
    '015-live-credentials': liveCredentialsMigration(),
    '016-embed-origins': embedOriginsMigration(),
  };
}
