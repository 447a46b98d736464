import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { okResponse } from '../../http/openapi-docs.js';
import { KEY_OR_USER } from '../../http/principal.js';
import { HOSTS_ONLY, SessionParams } from '../../http/shared-schemas.js';
import { checkedRules, RecordingControlAnswer, RecordingRulesBody } from './recording-schemas.js';
import type { LiveService } from './service.js';

const WHO = HOSTS_ONLY.trim();
const TOLD =
  'Every participant is told at once with `control` `recording` `{ state, rules }` (and finds the same in its `welcome`), in every server process.';

/** What a session records: its recording rules, and pausing and resuming its recording. */
export const recordingRoutes: FastifyPluginAsyncTypebox<{ live: LiveService }> = async (app, { live }) => {
  const answer = (description: string) => ({ 200: okResponse(description, RecordingControlAnswer) });

  app.get(
    '/v1/sessions/:sessionId/recording-rules',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags: ['Recording'],
        operationId: 'getRecordingRules',
        summary: "A session's recording rules and whether it is paused",
        params: SessionParams,
        response: answer('The rules, in the order they apply, and the recording state.'),
      },
    },
    async (request) => ok(await live.recording.get(request.principal!, request.params.sessionId)),
  );

  app.put(
    '/v1/sessions/:sessionId/recording-rules',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags: ['Recording'],
        operationId: 'setRecordingRules',
        summary: "Replace a session's recording rules",
        description: `Decides which streams are stored. For each stream every matching rule applies in order, the later winning; a stream no rule matches is recorded. \`{ "rules": [{ "type": "exclude", "all": true }, { "type": "include", "host": true }] }\` records the host alone: the dashboard member who created the session (a session created with an API key has no host; name its participants by \`user_id\`). A change applies to the messages published after it, before or during the session (a rule may name a participant before they join); what is not recorded is still relayed live (its publisher's \`ack\` then says \`recorded: false\`). The timeline records \`recording.rules_changed\` with the rules (at the session's start for rules set before it). Rules govern \`cam\`, \`mic\`, \`screen\` and \`chat\`; the director and captions streams are recorded whenever recording is not paused. After the session has ended the rules are kept and change nothing. ${WHO} ${TOLD}`,
        params: SessionParams,
        body: RecordingRulesBody,
        response: answer('The rules now in force.'),
      },
    },
    async (request) =>
      ok(
        await live.recording.setRules(
          request.principal!,
          request.params.sessionId,
          checkedRules(request.body.rules),
        ),
      ),
  );

  app.post(
    '/v1/sessions/:sessionId/recording/pause',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags: ['Recording'],
        operationId: 'pauseRecording',
        summary: 'Pause the recording',
        description: `From now until it is resumed nothing is stored but the timeline's own events (\`recording.paused\`, joins and leaves…); the call goes on live as before. The manifest's tracks then list their recorded \`segments\`, replay skips the paused span, and the MP4 export leaves it out unless \`keep_gaps=true\`. A session that has not started yet starts paused. 409 when the session has ended or is already paused. ${WHO} ${TOLD}`,
        params: SessionParams,
        response: answer('The recording is paused.'),
      },
    },
    async (request) => ok(await live.recording.pause(request.principal!, request.params.sessionId)),
  );

  app.post(
    '/v1/sessions/:sessionId/recording/resume',
    {
      config: { auth: KEY_OR_USER },
      schema: {
        tags: ['Recording'],
        operationId: 'resumeRecording',
        summary: 'Resume a paused recording',
        description: `Recording goes on from now, in the same recording: the timeline records \`recording.resumed\` with \`paused_ms\`. 409 when it is not paused or the session has ended. ${WHO} ${TOLD}`,
        params: SessionParams,
        response: answer('The recording goes on.'),
      },
    },
    async (request) => ok(await live.recording.resume(request.principal!, request.params.sessionId)),
  );
};
