// Generated from the vss OpenAPI document (GET /v1/openapi.json) by
// packages/client/scripts/generate.mjs: do not edit; run `npm run client:generate`.
/* eslint-disable */

export interface paths {
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth authorization server metadata (RFC 8414) */
        get: operations["getOAuthServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth protected resource metadata of /mcp (RFC 9728) */
        get: operations["getMcpResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness and database reachability
         * @description Plain text, not the envelope: `ok` with 200, or 503 with a short reason while the database does not answer, or while storage was removed or replaced under the running server (`storage unavailable: DATA_DIR/… was removed or replaced…`). Watched, by device and inode, at most a second late: `DATA_DIR` itself; on the embedded default its database files `vss.sqlite` and `streams.sqlite` and the `segments` folder of recorded media; and `secret.key` while the root secret is kept there (`SECRET_KEY` unset), since the next start needs it to recognize API keys. On PostgreSQL the metadata and recordings are not in `DATA_DIR`, so only the directory and the secret are watched (the directory also holds export files). While storage is unavailable every write (POST, PUT, PATCH, DELETE) is refused with 500 `SERVER_ERROR` and live publishes get an `error` instead of an `ack`, until the server is restarted on intact storage: what it would accept could not survive a restart. Reads keep answering.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Model Context Protocol
         * @description The MCP endpoint (Streamable HTTP, stateless, JSON answers). Accepts agent tokens and OAuth access tokens only (401 with `WWW-Authenticate: Bearer resource_metadata=…` otherwise). Speaks the newest protocol revision of the official SDK, and older ones a client asks for. One JSON-RPC message per request (batches are refused with 400), so that every call counts under the rate limit. GET and DELETE answer 405: there is no server-initiated stream and no MCP session to end. A request with an `Origin` header other than the origin of `PUBLIC_BASE_URL` answers 403 `FORBIDDEN` (against DNS rebinding); requests without `Origin`, as non-browser clients send them, are served. Send `Accept: application/json, text/event-stream` (406 otherwise).
         */
        post: operations["callMcp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Authorize an OAuth client (consent page)
         * @description Authorization code with PKCE (`code_challenge_method=S256` required; `plain` refused). Shows the signed-in user what the application asks for, where it will be sent back and for which project; their answer redirects to the registered `redirect_uri` with `code` (valid 60 s, once) or `error=access_denied`, and `state` and `iss`. A request that cannot be authorized (unknown client or redirect address, missing PKCE, bad scope) is explained on the page, never redirected: clients register their own addresses, and redirecting errors there would make this an open redirector. A client known by its metadata document (an https `client_id`) has it fetched in at most `OAUTH_CLIENT_METADATA_TIMEOUT_MS` (default 5 s) all told, dropped if the caller goes away; when it cannot be had the page says only that, never what the host resolved to or why the connection failed (that goes to the server log).
         */
        get: operations["authorizeOAuthClient"];
        put?: never;
        /**
         * Answer the consent page
         * @description The consent form posts here (same origin only).
         */
        post: operations["answerOAuthConsent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an OAuth client (RFC 7591)
         * @description Dynamic client registration. `redirect_uris` (https, http on a loopback address, or a private-use scheme) are matched exactly at authorization. `token_endpoint_auth_method` `none` (public clients, the default) or `client_secret_post` (a secret, shown once). Errors in OAuth form: 400 `invalid_redirect_uri` or `invalid_client_metadata`.
         */
        post: operations["registerOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a token (RFC 7009)
         * @description Revokes the grant of the access or refresh token; 200 even for an unknown token.
         */
        post: operations["revokeOAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * OAuth token endpoint
         * @description `grant_type=authorization_code` (with `code_verifier`) or `refresh_token`. Access tokens (`oat_…`) last 900 s and are accepted by /mcp only; each refresh returns a new refresh token, and presenting a spent one revokes the whole grant; an authorization code presented again after its exchange is refused and revokes the grant that exchange made (OAuth 2.1 §4.1.2). Errors in OAuth form (`invalid_grant`, `invalid_client`, `unsupported_grant_type`).
         */
        post: operations["exchangeOAuthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: whether this process takes work
         * @description Plain text, not the envelope, for a load balancer or an orchestrator deciding where to send traffic: `ready` with 200 only when this process can take work: it is not draining, its database answers, Redis answers when `REDIS_URL` is set, and `DATA_DIR` is intact and writable (a small file, `DATA_DIR/.ready`, is written). Otherwise 503 with the first reason found: `draining` (from the moment a SIGTERM or SIGINT arrives until the process exits; live participants are being sent to another server; after SIGTERM the port stays open, answering this, for at least DRAIN_GRACE_MS, 5 s by default), `database unavailable`, `redis unavailable`, `storage unavailable: …` or `storage not writable: …`. `/health` stays the liveness check: a draining process is alive, and is not restarted for it.
         */
        get: operations["getReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Agent activity
         * @description Every MCP tool call of the organisation, newest first: actor, tool, session, status, time.
         */
        get: operations["listAgentActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agent tokens
         * @description The organisation's agent tokens, oldest first; never a secret.
         */
        get: operations["listAgentTokens"];
        put?: never;
        /**
         * Create an agent token
         * @description A `sat_…` secret for an AI agent to use the `/mcp` endpoint, shown once. It acts on one project (default the first) with member rights, limited to its scopes, until deleted or expired. Dashboard users only; the REST API never accepts it.
         */
        post: operations["createAgentToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agent-tokens/{tokenId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an agent token
         * @description Refused by /mcp from the next call on.
         */
        delete: operations["deleteAgentToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Metadata of the organisation's API keys, oldest first; never a secret. Owners, admins and API keys only.
         */
        get: operations["listApiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a key
         * @description The key is refused from the next request on. A key may delete itself.
         */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        /** Relabel a key */
        patch: operations["relabelApiKey"];
        trace?: never;
    };
    "/v1/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in
         * @description Sets the HTTP-only `service_session` cookie for 7 days, replacing (and revoking) any session the client held. Wrong email and wrong password answer the same 401; repeated failures for one email answer 429 with `Retry-After`.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign out
         * @description Revokes the login session server-side and clears the cookie. Needs the cookie: 401 without it.
         */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an account
         * @description Creates a user, an organisation owned by them and a project named "Default", and signs them in (sets the `service_session` cookie). An email already registered answers 409. Not idempotent by key: a retry answers 409.
         */
        post: operations["registerAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who is signed in, if anyone
         * @description For pages that anybody may open: the signed-in user as `/v1/me` answers it, or `data: null` (200) without a `service_session` cookie, so that asking is not a failure. A cookie that is expired or signed out: 401. An API key: 401 (it is not a dashboard sign-in).
         */
        get: operations["getSignInState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/limits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Free-tier limits and whether the organisation is blocked
         * @description Over either free-tier limit (`FREE_TIER_STREAMING_MINUTES` per calendar month UTC, `FREE_TIER_STORAGE_GB` stored, 1 GB = 10⁹ bytes; exceeding means strictly more) and without an active subscription, session creation and export enqueue answer 503 `USAGE_LIMITS_EXCEEDED`, read from figures at most 5 seconds old. Sessions already under way can still be joined and rejoined, but a session that has not started cannot (connection tokens and `/ws` answer 503), and live media is refused once the stored bytes reach the free tier's storage (chat is still recorded); replay and downloads keep working. `status_message` tells a person what to do when blocked (and notes usage beyond the free tier under a subscription); empty otherwise. Read fresh, not cached.
         */
        get: operations["getBillingLimits"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open the billing portal for the organisation's customer
         * @description Makes the organisation's customer at the payment provider on first use (one per organisation, kept), then a portal session where a person adds a payment method and subscribes. Redirect them to `portal_url`. 403 for a member (owners, admins and API keys only); 409 `CONFLICT` "billing is not configured" with `BILLING_PROVIDER=none`; 400 naming `return_url` when it is not an http(s) address, or its origin is neither `PUBLIC_BASE_URL`'s nor one `BILLING_RETURN_ORIGINS` lists; 500 with the provider's message when it refuses or does not answer.
         */
        post: operations["openBillingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/stripe/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stripe's webhook
         * @description For Stripe only: point a webhook endpoint of your Stripe account here with the `customer.subscription.*` events. The body is verified with the `Stripe-Signature` header and `STRIPE_WEBHOOK_SECRET` (400 when it does not verify, or the header is missing; 400 naming the field when a verified event has no `id` or `type`, or a subscription event no `data.object.id`); each event is applied once by its id (a redelivery answers 200 and changes nothing). For a subscription event the service asks Stripe for the subscription's current state rather than trusting the event's copy, since events arrive out of order and several in one second; when Stripe does not answer, the event gets 500 and Stripe delivers it again. Subscription statuses `active`, `trialing` and `past_due` lift the free-tier limits of the customer's organisation within seconds. 409 with `BILLING_PROVIDER=none`.
         */
        post: operations["receiveStripeEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This month: usage and cost
         * @description The organisation's current calendar month (UTC): participant-minutes, bytes stored now, and their cost at `PRICE_PER_STREAMING_MINUTE` and `PRICE_PER_GB_MONTH` (USD), each part rounded to cents and `total_due` their sum. The free tier is an allowance before a subscription is needed, not a discount: the costs count every minute and byte. Read fresh, not cached.
         */
        get: operations["getBillingSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An export job
         * @description The job and where it stands. A failed job keeps `error` and, when ffmpeg failed, `error_log` (the end of its log). Another project’s job, like an unknown one, is 404.
         */
        get: operations["getExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/exports/{jobId}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an export
         * @description The MP4 (`Content-Type: video/mp4`), or for `format=m4a` the sound (`audio/mp4`), as an attachment (`Content-Disposition`), once the job is `completed`; 409 `CONFLICT` before that (and for a failed job), 404 for an unknown job or another project’s, and for an export withdrawn because a participant it shows was redacted (its file is deleted). Honours a single `Range: bytes=…` (206 with `Content-Range`; 416 when it starts past the end; other forms get the whole file) and `If-Range` with the `ETag`. A file is only ever served complete: renders write to a temporary name and store it under its final name when done. With object storage configured the file is in the bucket, and every server process serves it (streamed through the server, or with `redirect=true` a 302 to a short-lived presigned URL).
         */
        get: operations["downloadExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List invitations
         * @description The organisation's invitations, newest first, without tokens. Owners and admins.
         */
        get: operations["listInvitations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/{invitationId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an invitation */
        delete: operations["revokeInvitation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/lookup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What an invitation link offers
         * @description No credential: the token is the credential. The inviting organisation's name, the role offered, the invited address and who invited (their email; null when an API key invited), for the page of the invitation link (`accept_url`) to show before anyone signs in; takes nothing. Unknown token: 404. Used or expired: 409, as redeeming it would answer.
         */
        get: operations["describeInvitation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/invitations/redeem": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Redeem an invitation
         * @description Signed-in users only. The user's email must be the invited one (403 otherwise). Moves the user into the inviting organisation with the invited role. Used or expired: 409. Unknown token: 404.
         */
        post: operations["redeemInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/join/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a join link opens
         * @description No credential: the token is the credential. The session's name, whether it has ended and whether the link's uses are spent (`used_up`), for the join page to show before a guest types a name; takes no use. A token that is unknown, revoked or expired: 404, with one message for all three.
         */
        get: operations["describeJoinLink"];
        put?: never;
        /**
         * Join a session as a guest
         * @description No credential: the token is the credential. Takes one use of the link and answers a live connection token for a new guest id, valid 300 seconds: open `/ws?session={session}&user_id={user_id}&access_token={access_token}`. `display_name` is 1 to 64 characters of any script once trimmed, counted as a person sees them (a family emoji or a letter with its accents is one), at least one of them visible (spaces allowed, no control character; a name of only spaces or invisible characters such as U+200B is refused with 400 naming `body.display_name`). Refused: a token that is unknown, revoked or expired, 404 with one message for all three; a link whose uses are spent, or a session that has ended, 409 `CONFLICT`; a session that has not started while the organisation is over its free tier without a subscription, 503 `USAGE_LIMITS_EXCEEDED` (no use is taken). A guest who comes back with its `rejoin_token` (a reconnect once its token expired, a reload) keeps its `user_id` and takes no use, even from a link whose uses are spent; once removed from the session (`removeParticipant`), it is refused with 403. At most 30 attempts per client address per minute, whatever their outcome; past it, 429 `RATE_LIMITED` with `Retry-After`.
         */
        post: operations["joinWithLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in user
         * @description Needs the `service_session` cookie: 401 without it.
         */
        get: operations["getCurrentUser"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List members
         * @description Users of the organisation with their role, oldest first.
         */
        get: operations["listMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member
         * @description Deletes the member and their login sessions. Owners and admins; only an owner may remove an owner; the last owner cannot be removed: 409.
         */
        delete: operations["removeMember"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description Owners and admins (and API keys, as admins). Only an owner may grant the owner role or change an owner. The last owner cannot be demoted: 409.
         */
        patch: operations["setMemberRole"];
        trace?: never;
    };
    "/v1/oauth/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth grants
         * @description What the signed-in user granted to OAuth clients and has not revoked, newest first.
         */
        get: operations["listOAuthGrants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/grants/{grantId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an OAuth grant
         * @description Its access and refresh tokens are refused from the next call on.
         */
        delete: operations["revokeOAuthGrant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List projects
         * @description The organisation's projects, oldest first. Paginated with `limit` and `cursor` (next page in the `Link` header).
         */
        get: operations["listProjects"];
        put?: never;
        /**
         * Create a project
         * @description Owners and admins (and API keys) only. `name` is required (1 to 200 characters); `environment` is optional.
         */
        post: operations["createProject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a project
         * @description 404 for a project outside the organisation.
         */
        get: operations["getProject"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Rename a project, change its environment or the sites that may embed its room
         * @description Owners and admins (and API keys) only. Send at least one of `name`, `environment`, `embed_origins`. An `embed_origins` entry that is not an exact origin is refused with 400 naming it (`body.embed_origins[i]`), and nothing is changed.
         */
        patch: operations["updateProject"];
        trace?: never;
    };
    "/v1/projects/{projectId}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an API key
         * @description Issues an `sk_live_` key for a project of the organisation. The `secret` is in this response only; it is stored as a peppered hash. Optional body `{ label }`.
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/auto-export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A project's auto-export preset
         * @description The preset as last set; a project whose preset was never set answers `{ enabled: false, options: {}, updated_at: null }`. Every member of the organisation may read it; an API key reads its own project's only. 404 for a project outside the organisation (or, for an API key, another project). While the preset is enabled, each session of the project is exported with its options once its recording is ready (after the session ended, when `recording.ready` is sent), without a request: the export job shows `auto: true` and ends like any other, in `export.completed` (or `export.failed`), sent to the project's webhooks. At most one auto-export per session. A session with nothing recorded is not exported. Billing decides as for a requested export: an organisation over its free tier without a subscription gets no auto-export (it is skipped, not queued for later). Changing or disabling the preset applies to recordings that become ready afterwards; it does not touch exports already queued.
         */
        get: operations["getAutoExport"];
        /**
         * Set a project's auto-export preset
         * @description Replaces the preset: `enabled` and `options`, both required; `options` takes the fields of `POST /v1/sessions/{sessionId}/exports` (`{}` for the defaults: a 720p landscape grid MP4 with names, paused spans cut out; the preset keeps the options as given, and an export made with it fills in the defaults of the rest), except those of one session: `focus`, `from_ts` and `to_ts` are refused. A disabled preset keeps its options. Owners and admins, and API keys of the project, only: 403 for a member. 404 for a project outside the organisation (or, for an API key, another project). 400 naming the field (`body.options.format`…) for an unknown field, a value outside its choices, or `body.options.focus`, `body.options.from_ts` or `body.options.to_ts`; nothing is written then. While the preset is enabled, each session of the project is exported with its options once its recording is ready (after the session ended, when `recording.ready` is sent), without a request: the export job shows `auto: true` and ends like any other, in `export.completed` (or `export.failed`), sent to the project's webhooks. At most one auto-export per session. A session with nothing recorded is not exported. Billing decides as for a requested export: an organisation over its free tier without a subscription gets no auto-export (it is skipped, not queued for later). Changing or disabling the preset applies to recordings that become ready afterwards; it does not touch exports already queued.
         */
        put: operations["setAutoExport"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/billing/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open the billing portal for a project's own customer
         * @description As `POST /v1/billing/portal`, for a customer of the project's own (one per project, kept), so that a project can be paid for separately; its subscription lifts the organisation's limits too. 404 for a project outside the organisation. 403 for a member (owners, admins and API keys only); 409 `CONFLICT` "billing is not configured" with `BILLING_PROVIDER=none`; 400 naming `return_url` when it is not an http(s) address, or its origin is neither `PUBLIC_BASE_URL`'s nor one `BILLING_RETURN_ORIGINS` lists; 500 with the provider's message when it refuses or does not answer.
         */
        post: operations["openProjectBillingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invite someone into the organisation
         * @description Owners and admins (and API keys). Roles `admin` or `member`. The response carries the `token` and `accept_url` once; deliver them to the invitee. Valid 7 days. An email already in the organisation: 409.
         */
        post: operations["createInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description Sessions of the project, newest first (`created_at` descending). Paginated with `limit` (default 50, at most 200) and `cursor`; the next page is announced in `Link: <…>; rel="next"`.
         */
        get: operations["listProjectSessions"];
        put?: never;
        /**
         * Create a session
         * @description Creates a session (`started_at` and `ended_at` null) and emits `session.created`. Accepts API keys, restricted keys and the dashboard cookie. Refused with 503 `USAGE_LIMITS_EXCEEDED` when the free tier is exceeded without a subscription. Body optional: `{ name }`.
         */
        post: operations["createProjectSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a session of a project
         * @description 404 when the session is missing or belongs to another project.
         */
        get: operations["getProjectSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/projects/{projectId}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A project's usage
         * @description As `GET /v1/usage`, for one project of the caller's organisation (404 for any other). Streaming minutes are participant-minutes: each live connection (not replay) accrues from join to leave, fractionally, and is recorded per session when the participant leaves and every `USAGE_FLUSH_INTERVAL_S` (default 30 s) while connected, so a crash loses at most that much. Stored bytes are the recorded streams plus completed export files, recorded as changes (`storage_bytes` records, negative for deletions) when they change: while recording (same interval), at a session's end, after an export, a redaction, a session's deletion.
         */
        get: operations["getProjectUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Public catalog
         * @description Sessions with `is_public` true, newest first, reduced to id, name, created_at, started_at, ended_at. No credentials. Paginated like every list. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["listPublicSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/manifest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Manifest of a public session
         * @description 404 unless the session is public. With `token` (a replay link's): that session, public or not, while the link is valid (401 after), so that a player opened from a link can lay the recording out. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicManifest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/playback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A playback window of a public session
         * @description 404 unless the session is public. Time is cut into windows of `window_size` ms from `from_ts`. An answer starts at `base_seq` (without it, at the first event stamped from `from_ts` on) and holds, in `seq` order, the events stamped from `from_ts` on through the last one stamped in the window its first event falls in, at most 5000 events or 4 MiB of payload (an answer takes as long as its bytes do: a larger one would take over 50 ms): an event that arrived late (stamped in an earlier window) or early (in a later one) comes where it arrived, in `seq` order. Repeat with `base_seq = next_base_seq` (same `from_ts`) until it is null to read every event from `from_ts` on exactly once, in `seq` order. The answer is streamed as it is read (chunked, no Content-Length): if the server fails after the first byte it can only cut the connection, and the body received is then incomplete JSON (retry the request). Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicPlaybackWindow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/playback/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Timeline metadata of a public session
         * @description 404 unless the session is public. With `token` (a replay link's): that session, public or not, while the link is valid (401 after), so that a player opened from a link can lay the recording out. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicPlaybackTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Replay through a link
         * @description With `token` (from a replay link): playback of that session, public or not, until the link expires or is revoked (401 after). Without a token: public sessions only (404 otherwise). `from_ts` may be left out: reading then starts at the recording's first event (the `link` of a replay link carries no `from_ts`, and opens as returned). A browser navigating to the link (`Accept` naming `text/html`) is answered the dashboard's player page instead, which reads this route as data; every other client (`Accept: application/json`, `*\/*`, none) gets the playback window. Both answers carry `Vary: Accept`.Time is cut into windows of `window_size` ms from `from_ts`. An answer starts at `base_seq` (without it, at the first event stamped from `from_ts` on) and holds, in `seq` order, the events stamped from `from_ts` on through the last one stamped in the window its first event falls in, at most 5000 events or 4 MiB of payload (an answer takes as long as its bytes do: a larger one would take over 50 ms): an event that arrived late (stamped in an earlier window) or early (in a later one) comes where it arrived, in `seq` order. Repeat with `base_seq = next_base_seq` (same `from_ts`) until it is null to read every event from `from_ts` on exactly once, in `seq` order. The answer is streamed as it is read (chunked, no Content-Length): if the server fails after the first byte it can only cut the connection, and the body received is then incomplete JSON (retry the request). Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getReplayWindow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/storyboard.jpg": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The storyboard's sprite, public or through a replay link
         * @description The storyboard's sprite (`image/jpeg`), whose thumbnails the WebVTT cues point at. A storyboard is a JPEG sprite of thumbnails (160x90, the grid of everyone with video, without names), `columns` to a row, one every N seconds of the recording: N is 2, or the whole number of seconds that keeps a recording to at most 200 thumbnails. It is made once the recording is ready (`recording.ready`), and made again after a participant is redacted (the previous sprite is deleted at once). Times are those of the player's time bar: offsets from the recording's start (the manifest's `start_ts`), on the session's own clock, paused spans included (their thumbnails show no video); a thumbnail shows the picture at the middle of its cue. 404 `NOT_FOUND` while there is none, the message saying why: not made yet (the recording is not ready, or the storyboard is being made), the recording has no video (no camera, no screen: never one), or making it failed (with the reason). Answers carry `ETag` (revalidate with `If-None-Match`: 304) and `Cache-Control: private, no-cache`; a 404 is `no-store`. Access as the public replay (`getReplayWindow`): with `token` (a replay link's), that session, public or not, until the link expires or is revoked (401 after); without one, public sessions only (404 otherwise). Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicStoryboardSprite"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/storyboard.vtt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The storyboard's WebVTT, public or through a replay link
         * @description The storyboard's WebVTT (`text/vtt`): `WEBVTT`, then one cue per thumbnail, `HH:MM:SS.mmm --> HH:MM:SS.mmm` and `storyboard.jpg#xywh=x,y,w,h` (the thumbnail's place in the sprite). The cues follow one another with no gap from 0 and cover the whole recording. The sprite's address is relative, with the query of this request (a replay link's `token`), so that a client resolving it against this URL reads the sprite with the same access. A storyboard is a JPEG sprite of thumbnails (160x90, the grid of everyone with video, without names), `columns` to a row, one every N seconds of the recording: N is 2, or the whole number of seconds that keeps a recording to at most 200 thumbnails. It is made once the recording is ready (`recording.ready`), and made again after a participant is redacted (the previous sprite is deleted at once). Times are those of the player's time bar: offsets from the recording's start (the manifest's `start_ts`), on the session's own clock, paused spans included (their thumbnails show no video); a thumbnail shows the picture at the middle of its cue. 404 `NOT_FOUND` while there is none, the message saying why: not made yet (the recording is not ready, or the storyboard is being made), the recording has no video (no camera, no screen: never one), or making it failed (with the reason). Answers carry `ETag` (revalidate with `If-None-Match`: 304) and `Cache-Control: private, no-cache`; a 404 is `no-store`. Access as the public replay (`getReplayWindow`): with `token` (a replay link's), that session, public or not, until the link expires or is revoked (401 after); without one, public sessions only (404 otherwise). Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicStoryboardVtt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/public/sessions/{sessionId}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The timeline of a public session
         * @description Every event of the `events` stream, in order, as `GET /v1/sessions/{sessionId}/timeline` answers it: what a player lists and marks on its time bar before it reads the windows. 404 unless the session is public. With `token` (a replay link's): that session, public or not, while the link is valid (401 after), so that a player opened from a link can lay the recording out. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials. Any web page may read this route from any site: it answers CORS requests (`Access-Control-Allow-Origin: *`, preflight included) and never with credentials.
         */
        get: operations["getPublicTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/restricted-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List restricted keys
         * @description Metadata of the organisation's restricted keys, oldest first; never a secret. Owners, admins and API keys only.
         */
        get: operations["listRestrictedKeys"];
        put?: never;
        /**
         * Create a restricted key
         * @description Issues an `rk_live_` key, limited to creating sessions, requesting connection tokens and reading manifests of one project (`project_id`, default the caller's project). Every other route answers it 403. The `secret` is shown once.
         */
        post: operations["createRestrictedKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/restricted-keys/{keyId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a key
         * @description The key is refused from the next request on. A key may delete itself.
         */
        delete: operations["deleteRestrictedKey"];
        options?: never;
        head?: never;
        /** Relabel a key */
        patch: operations["relabelRestrictedKey"];
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sessions
         * @description Sessions of the project, newest first (`created_at` descending). Paginated with `limit` (default 50, at most 200) and `cursor`; the next page is announced in `Link: <…>; rel="next"`. An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation.
         */
        get: operations["listSessions"];
        put?: never;
        /**
         * Create a session
         * @description Creates a session (`started_at` and `ended_at` null) and emits `session.created`. Accepts API keys, restricted keys and the dashboard cookie. Refused with 503 `USAGE_LIMITS_EXCEEDED` when the free tier is exceeded without a subscription. Body optional: `{ name }`. An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation.
         */
        post: operations["createSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a session
         * @description 404 when the session is missing or belongs to another project. An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        /**
         * Delete a session
         * @description Deletes the session and everything recorded for it. Refused with 409 while the session is live. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        delete: operations["deleteSession"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/connection": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get a connection token
         * @description A JWT for `/ws`, valid 300 seconds, for one participant (`user_id`) of the session, live or replay (`replay: true`, with `from_ts`, `speed` 0.25 to 16, `focus`). Live tokens for an ended session: 409. Live tokens for a session that has not started, while the organisation is over its free tier without a subscription: 503 `USAGE_LIMITS_EXCEEDED` (a session under way may still be joined, so that a meeting is never cut off). While it is over its free-tier storage, its media is refused live with `USAGE_LIMITS_EXCEEDED` (chat still recorded). Accepts API keys, restricted keys and the dashboard cookie. Who the token is for: with the dashboard cookie, always the member's own account (`user_id` is their account id, answered in the response; a name they type is only `display_name`, and another `user_id` is refused with 400); with a key, the `user_id` asked for, which never begins with `guest-` (the ids join links give their guests; 400). A restricted key, the credential apps embed, mints only ids beginning with `app-` (its app's own users; 400 otherwise), and its live connection never replaces one made with a stronger credential (an API key, a dashboard member, a join link's guest): `/ws` refuses it with 409 while that one is connected.
         */
        post: operations["createConnectionToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export a session to MP4 (query form)
         * @description Queues an export job, with its options in the query; `POST /v1/sessions/{sessionId}/exports` takes the same options as a JSON body and is the documented way. The idempotency key's scope is the credential, the path and the query.
         *
         *     Renders the recording to one MP4 (H.264 + AAC, `+faststart`, constant 15 fps, or 30 fps when a camera was recorded faster than 20 fps): 1280x720 (`landscape`) or 720x1280 (`vertical`), or 1920x1080 and 1080x1920 with `resolution=1080p`; or with `format=m4a` to the sound alone. A clip (`from_ts`, `to_ts`) covers that span of the session's clock; each video in it starts from the key frame before its start, read from up to 3 s earlier (a camera whose key frames are further apart shows its name until its next one). Every camera and screen share is a tile; every microphone is mixed into the one audio track, mono when every microphone was recorded in mono and stereo when any was recorded with two or more channels (a mono voice is then heard in both). Each frame is placed at its recorded time from the first media frame of the session, so late joiners and gaps are where they happened; while a participant's camera is off (unpublished, or nothing sent for 10 s) or before they joined, their tile shows their name on a coloured background; a shorter gap in a camera holds its last picture. The MP4 lasts from the first to the last recorded media frame, less the spans in which recording was paused: those are cut out, every track at once, so that sound and pictures stay in sync across each cut (a camera recorded on both sides of one is not taken for off), and a join, leave or focus change made while paused shows from the cut on; with `keep_gaps=true` they are kept, showing names and silence. A track that ffmpeg cannot decode at all fails the job (`error`, `error_log`); it is not left out silently. A render that takes longer than `EXPORT_DEADLINE_BASE_S` (120 s) plus `EXPORT_DEADLINE_FACTOR` (3) times the recorded span is stopped and fails with an `error` that says so, so that no recording holds the export queue; message timestamps are bounded too (`LIVE_CLOCK_SKEW_S`), so that no participant's clock stretches the span.
         *
         *     `presenter`: the large tile shows a screen share while one is on (the latest started), else the `focus` participant, or, without `focus`, the participant named by the recording's latest `director.focus` command (commands naming someone without video are ignored), starting with the first participant with video; the strip shows everyone else.
         *
         *     Answers 202 with the job id at once; the job runs in a worker (the server by default, or `npm run worker`), `EXPORT_CONCURRENCY` at a time per process. Workers take turns between organisations: one organisation runs at most `EXPORT_RUNNING_PER_ORG` (2) renders at once, and a free worker takes the organisation with the fewest running, then the one served longest ago. At most `EXPORT_QUEUE_PER_ORG` (20) exports of an organisation are queued or rendering at once, auto-exports included: past it, 429 `RATE_LIMITED` with `Retry-After` (nothing is queued). 404 for a session that is missing or in another project; 409 while the session is live (export it once it has ended) or when nothing was recorded; 400 naming the parameter for a bad `layout`, `orientation`, `resolution`, `format`, `names`, `focus`, `from_ts`, `to_ts` or `keep_gaps` (`focus` must be a participant with video, and is accepted with `layout=presenter` only; `to_ts` must be after `from_ts`; a clip wholly before or after the recording is refused); 503 `USAGE_LIMITS_EXCEEDED` when the organisation is over its free tier without a subscription. A dashboard user's request must come from the dashboard's origin (it creates a job although it is a GET). Honours `Idempotency-Key`.
         */
        get: operations["enqueueExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A session's exports
         * @description Every export of the session, newest first, each as `GET /v1/exports/{jobId}` shows it (withdrawn ones after a redaction included, as `failed` with the reason). Not paged: a session has few exports. Another project’s session, like an unknown one, is 404.
         */
        get: operations["listSessionExports"];
        put?: never;
        /**
         * Export a session
         * @description Queues an export job with the options in a JSON body (every field optional; unknown fields are refused). The idempotency key's scope is the credential, the path and the body.
         *
         *     Renders the recording to one MP4 (H.264 + AAC, `+faststart`, constant 15 fps, or 30 fps when a camera was recorded faster than 20 fps): 1280x720 (`landscape`) or 720x1280 (`vertical`), or 1920x1080 and 1080x1920 with `resolution=1080p`; or with `format=m4a` to the sound alone. A clip (`from_ts`, `to_ts`) covers that span of the session's clock; each video in it starts from the key frame before its start, read from up to 3 s earlier (a camera whose key frames are further apart shows its name until its next one). Every camera and screen share is a tile; every microphone is mixed into the one audio track, mono when every microphone was recorded in mono and stereo when any was recorded with two or more channels (a mono voice is then heard in both). Each frame is placed at its recorded time from the first media frame of the session, so late joiners and gaps are where they happened; while a participant's camera is off (unpublished, or nothing sent for 10 s) or before they joined, their tile shows their name on a coloured background; a shorter gap in a camera holds its last picture. The MP4 lasts from the first to the last recorded media frame, less the spans in which recording was paused: those are cut out, every track at once, so that sound and pictures stay in sync across each cut (a camera recorded on both sides of one is not taken for off), and a join, leave or focus change made while paused shows from the cut on; with `keep_gaps=true` they are kept, showing names and silence. A track that ffmpeg cannot decode at all fails the job (`error`, `error_log`); it is not left out silently. A render that takes longer than `EXPORT_DEADLINE_BASE_S` (120 s) plus `EXPORT_DEADLINE_FACTOR` (3) times the recorded span is stopped and fails with an `error` that says so, so that no recording holds the export queue; message timestamps are bounded too (`LIVE_CLOCK_SKEW_S`), so that no participant's clock stretches the span.
         *
         *     `presenter`: the large tile shows a screen share while one is on (the latest started), else the `focus` participant, or, without `focus`, the participant named by the recording's latest `director.focus` command (commands naming someone without video are ignored), starting with the first participant with video; the strip shows everyone else.
         *
         *     Answers 202 with the job id at once; the job runs in a worker (the server by default, or `npm run worker`), `EXPORT_CONCURRENCY` at a time per process. Workers take turns between organisations: one organisation runs at most `EXPORT_RUNNING_PER_ORG` (2) renders at once, and a free worker takes the organisation with the fewest running, then the one served longest ago. At most `EXPORT_QUEUE_PER_ORG` (20) exports of an organisation are queued or rendering at once, auto-exports included: past it, 429 `RATE_LIMITED` with `Retry-After` (nothing is queued). 404 for a session that is missing or in another project; 409 while the session is live (export it once it has ended) or when nothing was recorded; 400 naming the parameter for a bad `layout`, `orientation`, `resolution`, `format`, `names`, `focus`, `from_ts`, `to_ts` or `keep_gaps` (`focus` must be a participant with video, and is accepted with `layout=presenter` only; `to_ts` must be after `from_ts`; a clip wholly before or after the recording is refused); 503 `USAGE_LIMITS_EXCEEDED` when the organisation is over its free tier without a subscription. A dashboard user's request must come from the dashboard's origin (it creates a job although it is a GET). Honours `Idempotency-Key`.
         */
        post: operations["createExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/join-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the join links of a session
         * @description Newest first, expired and used-up ones included (until revoked), never with their token.
         */
        get: operations["listJoinLinks"];
        put?: never;
        /**
         * Create a join link
         * @description A link that lets people without an account join the live session as guests: `{base_url}/join/{token}` is the page they open (session name, their name, camera and microphone, then the call). Each guest gets a new id (`guest-…`) and the name they typed. The link works until `expires_in_minutes` (1 to 43200, default 1440) have passed, it is revoked, or `max_uses` guests have joined with it; with `can_publish: false` its guests watch and chat only. The token is stored hashed: it is in this answer and nowhere else. A session that has ended: 409. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        post: operations["createJoinLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/join-links/{linkId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a join link
         * @description At once: its token answers 404 from now on, and the live tokens it gave that are not used yet are refused at `/ws` (403). Guests already in the call stay (remove one with `removeParticipant`). A link that expires refuses its unused live tokens likewise. A link this session does not have: 404. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        delete: operations["revokeJoinLink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/manifest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Session manifest
         * @description The layout-agnostic reconstruction contract: participants and their tracks (listed once media reached them), streams, capabilities. Without credentials it answers for public sessions only (401 otherwise).
         */
        get: operations["getManifest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/participants/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Redact a participant
         * @description Deletes every media stream (cam, mic, screen) of the participant: the bytes are removed from storage, not hidden. Appends `participant.redacted` to the timeline; the rest of the session is unchanged. Their chat stays unless `include_chat=true`, which replaces their chat bodies with a redaction marker. During a live session their further media is refused. Every export of the session rendered (or rendering) before the redaction shows and plays them: each is marked `failed` with the reason, its file deleted, and its download answers 404; exports queued after render without them. Manifest, playback timeline and playback no longer count them. A participant who published no media: 404. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation). Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        delete: operations["redactParticipant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/participants/{userId}/remove": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove a participant from a live session
         * @description Closes every live connection of the participant, in every server process: each gets `control` `removed`, then close code 4403 (final: clients do not reconnect). Their live tokens issued before the removal are refused with 403 at `/ws`; a token issued after it lets them in again (a removal is not a ban: stop issuing tokens, or revoke the join link, to keep someone out). The timeline records `participant.removed`. API keys, the session's creator and the organisation's admins and owner may remove (others: 403). A participant not in the live session: 404, and their live tokens issued before the request are refused all the same (a removal racing the participant's reconnect keeps them out whichever comes first). Their recording so far is kept (see `redactParticipant` to delete it).
         */
        post: operations["removeParticipant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/playback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A playback window
         * @description Time is cut into windows of `window_size` ms from `from_ts`. An answer starts at `base_seq` (without it, at the first event stamped from `from_ts` on) and holds, in `seq` order, the events stamped from `from_ts` on through the last one stamped in the window its first event falls in, at most 5000 events or 4 MiB of payload (an answer takes as long as its bytes do: a larger one would take over 50 ms): an event that arrived late (stamped in an earlier window) or early (in a later one) comes where it arrived, in `seq` order. Repeat with `base_seq = next_base_seq` (same `from_ts`) until it is null to read every event from `from_ts` on exactly once, in `seq` order. The answer is streamed as it is read (chunked, no Content-Length): if the server fails after the first byte it can only cut the connection, and the body received is then incomplete JSON (retry the request). Without credentials it answers for public sessions only (401 otherwise).
         */
        get: operations["getPlaybackWindow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/playback/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Playback timeline metadata
         * @description Streams, event count and time bounds. Without credentials it answers for public sessions only (401 otherwise).
         */
        get: operations["getPlaybackTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/recording-rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A session's recording rules and whether it is paused */
        get: operations["getRecordingRules"];
        /**
         * Replace a session's recording rules
         * @description Decides which streams are stored. For each stream every matching rule applies in order, the later winning; a stream no rule matches is recorded. `{ "rules": [{ "type": "exclude", "all": true }, { "type": "include", "host": true }] }` records the host alone: the dashboard member who created the session (a session created with an API key has no host; name its participants by `user_id`). A change applies to the messages published after it, before or during the session (a rule may name a participant before they join); what is not recorded is still relayed live (its publisher's `ack` then says `recorded: false`). The timeline records `recording.rules_changed` with the rules (at the session's start for rules set before it). Rules govern `cam`, `mic`, `screen` and `chat`; the director and captions streams are recorded whenever recording is not paused. After the session has ended the rules are kept and change nothing. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation). Every participant is told at once with `control` `recording` `{ state, rules }` (and finds the same in its `welcome`), in every server process.
         */
        put: operations["setRecordingRules"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/recording/pause": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause the recording
         * @description From now until it is resumed nothing is stored but the timeline's own events (`recording.paused`, joins and leaves…); the call goes on live as before. The manifest's tracks then list their recorded `segments`, replay skips the paused span, and the MP4 export leaves it out unless `keep_gaps=true`. A session that has not started yet starts paused. 409 when the session has ended or is already paused. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation). Every participant is told at once with `control` `recording` `{ state, rules }` (and finds the same in its `welcome`), in every server process.
         */
        post: operations["pauseRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/recording/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused recording
         * @description Recording goes on from now, in the same recording: the timeline records `recording.resumed` with `paused_ms`. 409 when it is not paused or the session has ended. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation). Every participant is told at once with `control` `recording` `{ state, rules }` (and finds the same in its `welcome`), in every server process.
         */
        post: operations["resumeRecording"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/replay-links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the replay links of a session
         * @description Newest first, expired ones included (until revoked), never with their token: a token is shown once, when its link is created.
         */
        get: operations["listReplayLinks"];
        put?: never;
        /**
         * Create a replay link
         * @description Unauthenticated windowed playback until it expires: `expires_in_minutes` 1 to 43200, default 1440. The token is stored hashed. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        post: operations["createReplayLink"];
        /** Revoke every replay link of a session */
        delete: operations["revokeReplayLinks"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/replay-links/{linkId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke one replay link
         * @description Its token is refused from then on (401); the session's other links keep working. A link this session does not have (unknown, already revoked, or another session's): 404. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        delete: operations["revokeReplayLink"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/storyboard.jpg": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The storyboard's sprite
         * @description The storyboard's sprite (`image/jpeg`), whose thumbnails the WebVTT cues point at. A storyboard is a JPEG sprite of thumbnails (160x90, the grid of everyone with video, without names), `columns` to a row, one every N seconds of the recording: N is 2, or the whole number of seconds that keeps a recording to at most 200 thumbnails. It is made once the recording is ready (`recording.ready`), and made again after a participant is redacted (the previous sprite is deleted at once). Times are those of the player's time bar: offsets from the recording's start (the manifest's `start_ts`), on the session's own clock, paused spans included (their thumbnails show no video); a thumbnail shows the picture at the middle of its cue. 404 `NOT_FOUND` while there is none, the message saying why: not made yet (the recording is not ready, or the storyboard is being made), the recording has no video (no camera, no screen: never one), or making it failed (with the reason). Answers carry `ETag` (revalidate with `If-None-Match`: 304) and `Cache-Control: private, no-cache`; a 404 is `no-store`. Access as playback (`getPlaybackWindow`): an API key or a login cookie for a session of its project; without credentials, public sessions only (401 otherwise). Another project's session, like an unknown one, is 404.
         */
        get: operations["getStoryboardSprite"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/storyboard.vtt": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The storyboard's WebVTT
         * @description The storyboard's WebVTT (`text/vtt`): `WEBVTT`, then one cue per thumbnail, `HH:MM:SS.mmm --> HH:MM:SS.mmm` and `storyboard.jpg#xywh=x,y,w,h` (the thumbnail's place in the sprite). The cues follow one another with no gap from 0 and cover the whole recording. The sprite's address is relative, with the query of this request (a replay link's `token`), so that a client resolving it against this URL reads the sprite with the same access. A storyboard is a JPEG sprite of thumbnails (160x90, the grid of everyone with video, without names), `columns` to a row, one every N seconds of the recording: N is 2, or the whole number of seconds that keeps a recording to at most 200 thumbnails. It is made once the recording is ready (`recording.ready`), and made again after a participant is redacted (the previous sprite is deleted at once). Times are those of the player's time bar: offsets from the recording's start (the manifest's `start_ts`), on the session's own clock, paused spans included (their thumbnails show no video); a thumbnail shows the picture at the middle of its cue. 404 `NOT_FOUND` while there is none, the message saying why: not made yet (the recording is not ready, or the storyboard is being made), the recording has no video (no camera, no screen: never one), or making it failed (with the reason). Answers carry `ETag` (revalidate with `If-None-Match`: 304) and `Cache-Control: private, no-cache`; a 404 is `no-store`. Access as playback (`getPlaybackWindow`): an API key or a login cookie for a session of its project; without credentials, public sessions only (401 otherwise). Another project's session, like an unknown one, is 404.
         */
        get: operations["getStoryboardVtt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The session timeline
         * @description Every event of the `events` stream, `{ seq, v, type, ts, actor, data }`, in order. For large sessions read windows instead.
         */
        get: operations["getTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{sessionId}/visibility": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Make a session public or private
         * @description Public sessions appear in the public catalog and can be replayed without credentials. `data` is the new state. Only API keys of the project, the member who created the session, and the organisation's admins and owner may do this; other members get 403 (they may join, watch, read and export any session of the organisation).
         */
        put: operations["setSessionVisibility"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organisation's usage
         * @description Usage records of every project of the caller's organisation (an API key acts for its whole organisation here, as on the other management routes), newest first and paged, with totals over the same filters. Minutes are dated when written and split at midnight UTC, so each record falls in the day and month it was used. Streaming minutes are participant-minutes: each live connection (not replay) accrues from join to leave, fractionally, and is recorded per session when the participant leaves and every `USAGE_FLUSH_INTERVAL_S` (default 30 s) while connected, so a crash loses at most that much. Stored bytes are the recorded streams plus completed export files, recorded as changes (`storage_bytes` records, negative for deletions) when they change: while recording (same interval), at a session's end, after an export, a redaction, a session's deletion. 400 naming the parameter for a malformed `from`, `to` or `session_id`, or `from` not before `to`.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Daily usage totals
         * @description One entry per UTC day from `from`'s day to `to`'s day (default the last 30 days), oldest first, with every day present: the participant-minutes recorded that day and the bytes stored at its end. For charts: nothing to sum on the client. At most 366 days; 400 naming the parameter otherwise.
         */
        get: operations["getDailyUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks
         * @description The active webhooks of the project, oldest first; `include_inactive=true` lists paused ones too. Never a secret. An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation. Changes need the admin role (API keys have it).
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Create a webhook
         * @description Registers a receiver for the listed event types of the project. The `secret` is in this response only. An API key acts on its own project; a dashboard user on the project in `X-Project-Id`, else the first project of the organisation. Changes need the admin role (API keys have it).
         *
         *     Delivery: a POST of `{ id, type, timestamp, project_id, session_id, data }` with `X-Service-Signature` (lowercase hex HMAC-SHA256 of the raw body, keyed with the whole `whsec_…` secret), `X-Service-Event-Id`, `X-Service-Timestamp` (Unix seconds of this attempt), and the Standard Webhooks headers `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the bytes of the secret's base64 part. Only a 2xx answer within `WEBHOOK_TIMEOUT_MS` (5 s) is success; redirects are not followed; at most 64 KiB of the answer is read. A failed attempt is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes: 9 attempts by default) with the same event id and the same bytes; retries are kept in the database and survive restarts. Any logged delivery can be sent once more by hand (`redeliverWebhookDelivery`). A paused or deleted webhook, or one no longer subscribed to the type, gets no further attempts of pending events. The address the URL resolves to is checked at every attempt.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description Deletes the webhook, its pending deliveries and its delivery log.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        /**
         * Update, pause or resume a webhook
         * @description Changes any of `url`, `events`, `is_active` (false pauses: pending deliveries are dropped and new events are not queued; true resumes) and `description`. At least one field.
         */
        patch: operations["updateWebhook"];
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery log
         * @description Every attempt at delivering an event to this webhook, newest first: one row per attempt, with the answer or the error, its duration, when the next attempt is due, and the `payload` sent (the event body, the same bytes on every attempt at it). Redeliveries asked for by hand are rows of their own, marked by `redelivery_of`. Kept 30 days.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description Sends the delivery's event to this webhook once more, now: the same event id (`X-Service-Event-Id`, `webhook-id`) and the same body bytes, signed with the current secret at a new `X-Service-Timestamp`, paused or not. Answers 202 with the new row of the delivery log: `status` `pending`, `redelivery_of` the delivery asked for; it becomes `succeeded` or `failed` once sent (read it in `listWebhookDeliveries`). It is one attempt: a failure is not retried. The original's schedule is untouched: its pending retries still happen when due. 404 names what is unknown: the webhook (in this project), or the delivery (of this webhook). At most 10 redeliveries per webhook per minute (the requests answered 404 do not count); past it, 429 `RATE_LIMITED` with `Retry-After`, and nothing is sent or logged.
         */
        post: operations["redeliverWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description Issues a new secret, shown in this response only. Every attempt from now on, retries of earlier events included, is signed with it; the old one stops at once.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Queues a `webhook.test` event (`session_id` null, `data: { webhook_id }`) for this webhook alone, paused or not, delivered and retried like any other; its attempts appear in the delivery log.
         */
        post: operations["sendWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ws": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live WebSocket
         * @description Upgrade with `?session=<id>&access_token=<token>&user_id=<id>` (token from `createConnectionToken`; add `&format=binary` to receive media as binary frames). A missing, expired or forged token, a token for another session, or another user_id: 401 before the upgrade; a live token for an ended session: 409; a live token issued before its participant was removed from the session, or a guest's live token whose join link was revoked or has expired since: 403; a restricted key's live token for a `user_id` connected with a stronger credential (an API key, a dashboard member, a join link's guest): 409, and the connection in place stays (a restricted key's connection that the stronger one overtakes while it is joining gets an `error` `REPLACED` and closes with 4409).
         *
         *     Messages are JSON text frames: the client sends `LiveClientMessage` (`publish`, `unpublish`), the server `LiveServerMessage` (`message`, and `control` with the events `welcome`, `join`, `leave`, `track.published`, `track.unpublished`, `ack`, `error`, `end`, `recording`, `skip`); `x-messages` names their schemas. Media may also travel as binary frames (see the document's description): clients may always send binary publish frames; with `format=binary` the server sends media as binary message frames too. Media payloads are one JPEG or one EVC1 chunk (`EVC1`, version, flags, uint16 + codec string, uint64 timestamp µs, uint32 duration µs, uint32 + description, data).
         *
         *     Close codes: 1000 normal (and replay finished), 1001 server shutting down (on a graceful stop a `reconnect` control comes first: connect again), 1008 too many invalid messages, 1011 server error, 1012 a new connection to a server that is draining (connect again, elsewhere), 1013 too slow a receiver, 4403 removed: the session's host removed the participant (`removeParticipant`; a `removed` control comes first; do not reconnect), 4409 replaced: a newer connection with the same `user_id` joined the session (in any server process; a `replaced` control comes first; do not reconnect). One `user_id` has one live connection in a session. A replay token plays the recording from `from_ts` at `speed`, then sends `end`. Full protocol: docs/protocol.md in the repository.
         */
        get: operations["connectLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "export.completed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An MP4 export completed
         * @description Sent when an export job completes. `data` is the job as `getExport` shows it (`status` `completed`, with `download_url`, `size_bytes` and `duration_ms`). An export that fails for good sends `export.failed` instead. Delivered only to active webhooks of the project that list `export.completed` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverExportCompleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "export.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * An MP4 export failed
         * @description Sent once when an export job fails for good: the render failed in a way another attempt would repeat (ffmpeg refused the recording's media), or its attempts ran out. `data` is the job as `getExport` shows it: `status` `failed`, with `error` (why, in words) and `error_log` (the end of ffmpeg's log, or null). The session's timeline records it too. Delivered only to active webhooks of the project that list `export.failed` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverExportFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "participant.joined": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A participant joined a live session
         * @description Sent for each live connection that joins (a participant who reconnects, or opens a second tab, joins again). `data` is `{ user_id, display_name }`. Delivered only to active webhooks of the project that list `participant.joined` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverParticipantJoined"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "participant.left": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A participant left a live session
         * @description Sent for each live connection that leaves: it closed, was cut, was replaced by a newer one of the same user, or the participant was removed. `data` is `{ user_id, display_name }`. Delivered only to active webhooks of the project that list `participant.left` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverParticipantLeft"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "recording.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A recording could not be sealed or stored
         * @description Sent once when a step that makes an ended session's recording ready (`finalize`, which announces `recording.ready`) or keeps it (`seal`: its segments closed and stored in object storage) has failed its last attempt, after the retries of `RECORDING_RETRY_DELAYS_S`. `data` is `{ stage, error }`. After a failed `seal` the recording stays readable from this server's own storage, and may still be stored by a later pass. Delivered only to active webhooks of the project that list `recording.failed` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverRecordingFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "recording.ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A recording is ready
         * @description Sent after `session.ended`, once every stream of the session is durably written: the recording can be replayed and exported. Not sent for a session deleted before that. Delivered only to active webhooks of the project that list `recording.ready` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverRecordingReady"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "session.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A session was created
         * @description Sent when `createSession` or `createProjectSession` creates a session (queued in the transaction that creates it). `data` is the session as `getSession` shows it (`started_at` and `ended_at` null). Delivered only to active webhooks of the project that list `session.created` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverSessionCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "session.ended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A session ended
         * @description Sent once, when the last participant has been gone `SESSION_DEPARTURE_TIMEOUT_S`. `data` is the session with `ended_at` set. Delivered only to active webhooks of the project that list `session.ended` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverSessionEnded"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "session.started": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A session started
         * @description Sent once, when the first participant joins (in whichever process). `data` is the session with `started_at` set. Delivered only to active webhooks of the project that list `session.started` in `events`; a failed attempt is retried, so a receiver may see an event more than once (same `id`), and events of one session may arrive out of order.
         */
        post: operations["deliverSessionStarted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** AgentActivity */
        AgentActivity: {
            /** @description `agent_token:<id>` or `oauth:<grant id>` */
            actor: string;
            /** Format: date-time */
            created_at: string;
            error_code: string | null;
            id: string;
            project_id: string;
            session_id: string | null;
            /** @description `succeeded`, `failed` (the API refused: see error_code) or `refused` (scope) */
            status: string;
            tool: string;
        };
        /** AgentToken */
        AgentToken: {
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string | null;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
            /** @description `mcp:read`, `mcp:write` */
            scopes: string[];
        };
        /** ApiKey */
        ApiKey: {
            /** Format: date-time */
            created_at: string;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
        };
        /** AutoExport */
        AutoExport: {
            /** @description true: every session of the project whose recording becomes ready is exported */
            enabled: boolean;
            options: components["schemas"]["AutoExportOptions"];
            /**
             * Format: date-time
             * @description when the preset was last set; null when it never was
             */
            updated_at: string | null;
        };
        /**
         * AutoExportOptions
         * @description The export options of every auto-export as they were set, each optional, with the default of an export (`layout` grid, `orientation` landscape, `resolution` 720p, `format` mp4, `names` true, `keep_gaps` false) applied when a session is exported; empty while the preset was never set.
         */
        AutoExportOptions: {
            /**
             * @description `mp4`: the pictures and the sound. `m4a`: the sound alone (every microphone mixed, AAC in an MPEG-4 audio file, `audio/mp4`), for transcription or a podcast; no video is read or encoded, so it is made many times faster; it lasts from the first recorded sound to the last (409 when no microphone was recorded), and `layout`, `orientation`, `resolution`, `focus` and `names` do not apply.
             * @enum {string}
             */
            format?: "mp4" | "m4a";
            /** @description What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence. */
            keep_gaps?: boolean;
            /**
             * @description `grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip. `speaker`: the presenter layout whose large tile follows whoever is speaking, decided from the microphones' sound level (someone must speak for most of a second to take it: a cough does not), starting with the first participant until someone speaks; a screen share still takes it while on.
             * @enum {string}
             */
            layout?: "grid" | "presenter" | "speaker";
            /** @description Draw each video tile's name bar: the participant's display name (the user id where none was given). `false` leaves the pictures bare; a tile whose camera is off still shows the name in its middle. */
            names?: boolean;
            /**
             * @description `landscape` (1280x720, or 1920x1080 at 1080p) or `vertical` (720x1280, or 1080x1920)
             * @enum {string}
             */
            orientation?: "landscape" | "vertical";
            /**
             * @description `720p` (1280x720 or 720x1280) or `1080p` (1920x1080 or 1080x1920: the same layout drawn 1.5 times larger, names included).
             * @enum {string}
             */
            resolution?: "720p" | "1080p";
        };
        /**
         * AutoExportOptionsInput
         * @description The fields of `POST /v1/sessions/{sessionId}/exports`, each optional, with the default of an export (`layout` grid, `orientation` landscape, `resolution` 720p, `format` mp4, `names` true, `keep_gaps` false) applied when a session is exported. Unknown fields are refused, and so are `focus`, `from_ts` and `to_ts`, which belong to one session.
         */
        AutoExportOptionsInput: {
            /** @description presenter layout only: the user id of a participant with video (camera or screen) in the session, shown large for the whole export. Without it the large tile follows the recording’s `director.focus` commands, starting with the first participant. */
            focus?: string;
            /**
             * @description `mp4`: the pictures and the sound. `m4a`: the sound alone (every microphone mixed, AAC in an MPEG-4 audio file, `audio/mp4`), for transcription or a podcast; no video is read or encoded, so it is made many times faster; it lasts from the first recorded sound to the last (409 when no microphone was recorded), and `layout`, `orientation`, `resolution`, `focus` and `names` do not apply.
             * @enum {string}
             */
            format?: "mp4" | "m4a";
            /** @description A clip: where it starts, on the session's clock (ms since 1970, as the timeline, the manifest and replay use). Only that span is read, decoded and encoded, so a minute of an hour costs a minute. Default: the first recorded frame. A clip reaching beyond the recording is cut to it; one wholly outside it is refused. */
            from_ts?: number;
            /** @description What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence. */
            keep_gaps?: boolean;
            /**
             * @description `grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip. `speaker`: the presenter layout whose large tile follows whoever is speaking, decided from the microphones' sound level (someone must speak for most of a second to take it: a cough does not), starting with the first participant until someone speaks; a screen share still takes it while on.
             * @enum {string}
             */
            layout?: "grid" | "presenter" | "speaker";
            /** @description Draw each video tile's name bar: the participant's display name (the user id where none was given). `false` leaves the pictures bare; a tile whose camera is off still shows the name in its middle. */
            names?: boolean;
            /**
             * @description `landscape` (1280x720, or 1920x1080 at 1080p) or `vertical` (720x1280, or 1080x1920)
             * @enum {string}
             */
            orientation?: "landscape" | "vertical";
            /**
             * @description `720p` (1280x720 or 720x1280) or `1080p` (1920x1080 or 1080x1920: the same layout drawn 1.5 times larger, names included).
             * @enum {string}
             */
            resolution?: "720p" | "1080p";
            /** @description A clip: where it ends (exclusive), ms since 1970; after `from_ts`. Default: the last recorded frame. Paused spans inside a clip are cut out like any other unless `keep_gaps`. */
            to_ts?: number;
        };
        /** BillingLimits */
        BillingLimits: {
            /** @description a payment provider is configured, so `POST /v1/billing/portal` can open a portal; false with `BILLING_PROVIDER=none` (the portal then answers 409) */
            billing_portal: boolean;
            /** @description a subscription of the organisation (or of one of its projects) is active, trialing or past due */
            has_active_subscription: boolean;
            /** @description over the free tier without a subscription: new sessions and exports are refused */
            is_blocked: boolean;
            /** @description what to do, for a person; empty when there is nothing to say */
            status_message: string;
            /** @description bytes stored now, in GB (10⁹ bytes) */
            storage_bytes_used_gb: number;
            /** @description participant-minutes this calendar month (UTC) */
            streaming_minutes_used: number;
            /** @description neither free-tier limit is exceeded */
            within_free_tier: boolean;
        };
        /** BillingPortal */
        BillingPortal: {
            /** @description the payment provider's portal: redirect the person there */
            portal_url: string;
        };
        /** BillingSummary */
        BillingSummary: {
            cost_breakdown: components["schemas"]["CostBreakdown"];
            /** @enum {string} */
            currency: "usd";
            /**
             * Format: date-time
             * @description the first instant of the next month (exclusive)
             */
            period_end: string;
            /**
             * Format: date-time
             * @description the first instant of the current calendar month (UTC)
             */
            period_start: string;
            /** @description bytes stored now */
            storage_bytes_used: number;
            /** @description participant-minutes this month */
            streaming_minutes_used: number;
        };
        /** ConnectionToken */
        ConnectionToken: {
            /** @description JWT for /ws, valid 300 seconds */
            access_token: string;
            /** @description seconds until expiry: 300 */
            expires_in: number;
            session: string;
            /** @description the participant the token is for (with the dashboard cookie: the member's account id) */
            user_id: string;
        };
        /** CostBreakdown */
        CostBreakdown: {
            /** @description storage_bytes_used in GB (10⁹ bytes) × PRICE_PER_GB_MONTH, rounded to cents: the month's charge if what is stored now stays stored */
            storage_cost: number;
            /** @description streaming_minutes_used × PRICE_PER_STREAMING_MINUTE, in dollars rounded to cents */
            streaming_cost: number;
            /** @description streaming_cost + storage_cost */
            total_due: number;
        };
        /** CreatedAgentToken */
        CreatedAgentToken: {
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string | null;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
            /** @description `mcp:read`, `mcp:write` */
            scopes: string[];
            /** @description shown once, never again: `sat_…` */
            secret: string;
        };
        /** CreatedApiKey */
        CreatedApiKey: {
            /** Format: date-time */
            created_at: string;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
            /** @description shown once, never again: `sk_live_…` */
            secret: string;
        };
        /** CreatedInvitation */
        CreatedInvitation: {
            /** @description {base_url}/invite?token=…, for the caller to deliver */
            accept_url: string;
            /** Format: date-time */
            accepted_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description the inviting user id, or "api_key" */
            created_by: string;
            email: string;
            /** Format: date-time */
            expires_at: string;
            id: string;
            org_id: string;
            role: string;
            /** @description shown once; the invitee redeems it */
            token: string;
        };
        /** CreatedRestrictedKey */
        CreatedRestrictedKey: {
            /** Format: date-time */
            created_at: string;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
            /** @description shown once, never again: `rk_live_…` */
            secret: string;
        };
        /** Deleted */
        Deleted: {
            /** @enum {boolean} */
            deleted: true;
            id: string;
        };
        /** Error */
        Error: {
            /** @description stable machine-readable code, e.g. BAD_REQUEST */
            code: string;
            /** @description human-readable; names the offending field where there is one */
            message: string;
        };
        /**
         * ErrorEnvelope
         * @description Every failure: data is null, error names the problem.
         */
        ErrorEnvelope: {
            data: null;
            error: components["schemas"]["Error"];
        };
        /** ExportCompletedEvent */
        ExportCompletedEvent: {
            data: components["schemas"]["ExportJob"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "export.completed";
        };
        /** ExportFailedEvent */
        ExportFailedEvent: {
            data: components["schemas"]["ExportJob"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "export.failed";
        };
        /** ExportJob */
        ExportJob: {
            /** @description render attempts started so far */
            attempts: number;
            /** @description true when the project's auto-export made it (`PUT /v1/projects/{projectId}/auto-export`) */
            auto: boolean;
            /**
             * Format: date-time
             * @description when it completed or failed
             */
            completed_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description the download operation; it answers 409 until `completed` */
            download_url: string;
            /** @description of the MP4, once completed */
            duration_ms: number | null;
            /** @description why the job failed (or why the last attempt did) */
            error: string | null;
            /** @description the end of ffmpeg’s log when ffmpeg failed (paths under DATA_DIR shown as $DATA_DIR) */
            error_log: string | null;
            /** @description as asked; null when the layout follows the director */
            focus: string | null;
            /**
             * @description `mp4`, or `m4a` for the sound alone
             * @enum {string}
             */
            format: "mp4" | "m4a";
            /** @description a clip's start as asked (ms since 1970); null: the start */
            from_ts: number | null;
            /** Format: uuid */
            job_id: string;
            /** @description as asked: true when the paused spans are kept in the MP4, false when they are cut out */
            keep_gaps: boolean;
            /** @enum {string} */
            layout: "grid" | "presenter" | "speaker";
            /** @description as asked: whether the tiles carry name bars */
            names: boolean;
            /** @enum {string} */
            orientation: "landscape" | "vertical";
            /** @description share of the current attempt rendered */
            progress: number;
            /** @enum {string} */
            resolution: "720p" | "1080p";
            /** @description the session id */
            room_id: string;
            /** @description of the MP4, once completed */
            size_bytes: number | null;
            /**
             * Format: date-time
             * @description when the current (or last) attempt started
             */
            started_at: string | null;
            /**
             * @description `queued` → `processing` → `completed` | `failed`. A job whose worker stopped or died stays `processing` until another worker takes it up (after `EXPORT_LEASE_S`); at most 3 attempts.
             * @enum {string}
             */
            status: "queued" | "processing" | "completed" | "failed";
            /** @description a clip's end as asked (ms since 1970); null: the end */
            to_ts: number | null;
        };
        /** GuestToken */
        GuestToken: {
            /** @description JWT for /ws, valid 300 seconds */
            access_token: string;
            can_publish: boolean;
            /** @description the name as others see it (trimmed) */
            display_name: string;
            /** @description seconds until expiry: 300 */
            expires_in: number;
            /** @description send it back with `POST /v1/join/{token}` to come back as the same guest (a reconnect, a reload) while the link is valid */
            rejoin_token: string;
            session: string;
            /** @description the guest's new id, `guest-` and random letters and digits: use it as `/ws`'s `user_id` */
            user_id: string;
        };
        /** Invitation */
        Invitation: {
            /** Format: date-time */
            accepted_at: string | null;
            /** Format: date-time */
            created_at: string;
            /** @description the inviting user id, or "api_key" */
            created_by: string;
            email: string;
            /** Format: date-time */
            expires_at: string;
            id: string;
            org_id: string;
            role: string;
        };
        /** InvitationDescription */
        InvitationDescription: {
            /** @description the address invited: the account that redeems must have it */
            email: string;
            /** Format: date-time */
            expires_at: string;
            /** @description who invited; null when an API key did, or the inviting user is gone */
            invited_by: {
                /** @description the inviting user's email */
                email: string;
            } | null;
            /** @description the organisation the invitation is into */
            organisation: {
                id: string;
                /** @description the organisation as its members see it named */
                name: string;
            };
            /**
             * @description the role the invitee gets
             * @enum {string}
             */
            role: "admin" | "member";
        };
        /** JoinLink */
        JoinLink: {
            can_publish: boolean;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description in the past once it has expired
             */
            expires_at: string;
            /** @description names the link to revoke it (`DELETE …/join-links/{linkId}`) */
            id: string;
            /** @description null: no limit */
            max_uses: number | null;
            session_id: string;
            /** @description shown this once: it is stored only as a hash */
            token: string;
            /** @description {base_url}/join/{token}: the page a guest opens */
            url: string;
            /** @description guests who joined with it so far */
            uses: number;
        };
        /** JoinLinkInfo */
        JoinLinkInfo: {
            can_publish: boolean;
            /** Format: date-time */
            expires_at: string;
            session: {
                /** @description true: nobody can join any more */
                ended: boolean;
                id: string;
                /** @description true: its replay is public (`/watch/{id}`) */
                is_public: boolean;
                name: string;
            };
            /** @description true: as many guests have joined with it as it allows, so it lets in only a guest coming back with its `rejoin_token` */
            used_up: boolean;
        };
        /** JsonRpcError */
        JsonRpcError: {
            code: number;
            data?: unknown;
            message: string;
        };
        /** JsonRpcResponse */
        JsonRpcResponse: {
            error?: components["schemas"]["JsonRpcError"];
            id: string | number | null;
            /** @enum {string} */
            jsonrpc: "2.0";
            result?: {
                [key: string]: unknown;
            };
        };
        /** ListedJoinLink */
        ListedJoinLink: {
            can_publish: boolean;
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description in the past once it has expired
             */
            expires_at: string;
            /** @description names the link to revoke it (`DELETE …/join-links/{linkId}`) */
            id: string;
            /** @description null: no limit */
            max_uses: number | null;
            session_id: string;
            /** @description guests who joined with it so far */
            uses: number;
        };
        /** ListedReplayLink */
        ListedReplayLink: {
            /** Format: date-time */
            created_at: string;
            /**
             * Format: date-time
             * @description in the past once it has expired
             */
            expires_at: string;
            id: string;
            session_id: string;
        };
        /**
         * LiveAck
         * @description The publish with this `id` is durably written (survives a crash), or relayed when it is not recorded (a reduced video layer; `recorded: false` while paused or left out by the rules); sent to the publisher.
         */
        LiveAck: {
            data: {
                /** @description the publish's `id`, as a string */
                id: string;
                /** @description the reduced layer relayed (1 or 2) */
                layer?: number;
                /**
                 * @description relayed live but not stored: the recording is paused, or its rules leave this stream out; for chat and director commands also when the organisation's free-tier storage is used up or the session's text is over `LIVE_TEXT_MB_PER_SESSION`
                 * @enum {boolean}
                 */
                recorded?: false;
                /** @description absent for a reduced video layer: relayed, not recorded */
                seq?: number;
            };
            /** @enum {string} */
            event: "ack";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the publisher */
            user_id: string;
        };
        /**
         * LiveChatPayload
         * @description What a `chat` publish carries in `body` (UTF-8 JSON). Chat and director commands together: 10 messages a second per connection (50 at once) and 16 KiB a second of what they record (64 KiB at once), for everyone, a watch-only guest too; past either, `RATE_LIMITED`.
         */
        LiveChatPayload: {
            text: string;
        };
        /**
         * LiveClientMessage
         * @description What a client sends, as a JSON text frame (or a media publish as a binary frame). Every message counts against 200 per second (400 in a burst); more than 20 invalid ones within 10 s close the connection with 1008.
         */
        LiveClientMessage: components["schemas"]["LivePublish"] | components["schemas"]["LiveUnpublish"] | components["schemas"]["LiveKeyframeRequest"];
        /**
         * LiveControl
         * @description Server → client: lifecycle and protocol signals, by `event`.
         */
        LiveControl: components["schemas"]["LiveWelcome"] | components["schemas"]["LivePresence"] | components["schemas"]["LiveTrack"] | components["schemas"]["LiveAck"] | components["schemas"]["LiveError"] | components["schemas"]["LiveEnd"] | components["schemas"]["LiveRecording"] | components["schemas"]["LiveSkip"] | components["schemas"]["LiveReconnect"] | components["schemas"]["LiveReplaced"] | components["schemas"]["LiveRemoved"] | components["schemas"]["LiveLayer"] | components["schemas"]["LiveKeyframe"];
        /**
         * LiveDirectorCommand
         * @description What a `director` publish carries in `body` (UTF-8 JSON).
         */
        LiveDirectorCommand: {
            data: {
                layout: "grid" | "presenter";
            };
            /** @enum {string} */
            type: "director.layout";
        } | {
            data: {
                /** @description someone who has joined the session (now or earlier); any other is refused with `BAD_MESSAGE` */
                user_id: string;
            };
            /** @enum {string} */
            type: "director.focus";
        };
        /**
         * LiveEnd
         * @description A replay connection played the whole recording; the server then closes with 1000.
         */
        LiveEnd: {
            data: {
                elapsed_ms: number;
                /** @description `replay finished` */
                reason: string;
            };
            /** @enum {string} */
            event: "end";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description `system` */
            user_id: string;
        };
        /**
         * LiveError
         * @description A message was refused; sent to its sender.
         */
        LiveError: {
            data: {
                /** @enum {string} */
                code: "BAD_MESSAGE" | "FORBIDDEN_STREAM" | "TOO_LARGE" | "RATE_LIMITED" | "BAD_CODEC" | "REDACTED" | "REPLAY_ONLY" | "SERVER_ERROR" | "UNAVAILABLE" | "REPLACED" | "USAGE_LIMITS_EXCEEDED" | "BAD_LAYER";
                /** @description the refused message's `id`, when it had one that could be read */
                id?: string;
                message: string;
            };
            /** @enum {string} */
            event: "error";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the sender */
            user_id: string;
        };
        /**
         * LiveKeyframe
         * @description Encode a key frame on this track and layer now: a receiver switched layers, recovered from a stall, or lost the picture. Sent to the publisher at most once per track and layer every 500 ms.
         */
        LiveKeyframe: {
            data: {
                layer: number;
                /** @enum {string} */
                track: "cam" | "screen";
            };
            /** @enum {string} */
            event: "keyframe";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the publisher (you) */
            user_id: string;
        };
        /**
         * LiveKeyframeRequest
         * @description Client → server: ask for a key frame of a publisher's video track (your decoder lost the picture). One per publisher's track per second is passed on, and a publisher is asked at most once per track and layer every 500 ms however many ask; more are refused with `RATE_LIMITED`, a user or track not being published with `BAD_MESSAGE`. Neither counts toward the 1008 limit.
         */
        LiveKeyframeRequest: {
            /** @description `cam` or `screen` */
            track: string;
            /** @enum {string} */
            type: "keyframe";
            /** @description the publisher */
            user_id: string;
        };
        /**
         * LiveLayer
         * @description What this receiver now gets of a publisher's video track; sent to that receiver alone, when it changes.
         */
        LiveLayer: {
            data: {
                /**
                 * @description why it is not `full` (absent when it is): `server`, the server was busy (its event loop held up 300 ms or more in the last 3 s, as on a busy machine), so the queue need not be your connection's doing; `link`, the server was not busy: your connection, or your device reading slowly. Say "slow connection" only for `link`, and only when your own device is not busy either.
                 * @enum {string}
                 */
                cause?: "link" | "server";
                layer: number;
                /**
                 * @description `full`: layer 0; `reduced`: a reduced layer, because what was sent to you queued up; `stalled`: nothing of this track until its next key frame (what was sent to you fell behind)
                 * @enum {string}
                 */
                state: "full" | "reduced" | "stalled";
                /** @enum {string} */
                track: "cam" | "screen";
            };
            /** @enum {string} */
            event: "layer";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the publisher */
            user_id: string;
        };
        /**
         * LiveMessage
         * @description Server → client: recorded data of a stream, from another participant (a publisher never gets its own back), or from the recording on a replay connection. With `format=binary`, media comes as binary frames instead. Live media is paced per receiver: of each publisher's video, the layer its link carries (told by `layer` controls); when the link queues, control and chat overtake audio and audio overtakes video, and video that would wait over 250 ms is skipped to a key frame.
         */
        LiveMessage: {
            /** @description base64 of the payload (for chat and director a `LiveRecordedPayload`) */
            body: string;
            /** @description the message's place in the session's one sequence over all streams; 0 for a frame of a reduced video layer (not recorded) */
            seq: number;
            stream_type: string;
            /** @description ms since 1970, the media clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "message";
        };
        /**
         * LivePresence
         * @description Someone joined or left; sent to everybody else.
         */
        LivePresence: {
            data: {
                /** @description `join` only: the name to show (the user_id when none was given) */
                display_name?: string;
            };
            /** @enum {string} */
            event: "join" | "leave";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the participant concerned */
            user_id: string;
        };
        /**
         * LivePublish
         * @description Client → server: publish to a stream. At most 2 MiB for media, 64 KiB otherwise.
         */
        LivePublish: {
            /** @description base64 of the payload: one JPEG or EVC1 video chunk (cam, screen), one EVC1 audio chunk (mic), a `LiveChatPayload` or a `LiveDirectorCommand` (UTF-8 JSON) */
            body: string;
            /** @description asks for an `ack` once the message is durably written (or an `error` naming it) */
            id?: string | number;
            /** @description the video layer (cam and screen only; default 0). Layer 0 is the full picture, the one recorded; 1 and 2 are reduced copies (about half and a quarter of its size) relayed live to receivers whose link cannot carry more, never recorded: their `ack` has no `seq`. Anything else is refused with `BAD_LAYER`. */
            layer?: number;
            /** @description `media/<own user_id>/cam`, `…/mic` or `…/screen`, `chat` or `director`; the first publish on a media stream emits `track.published` */
            stream_type: string;
            /** @description ms since 1970 on the media clock; default the server's clock. Refused (`BAD_MESSAGE`) when further than `LIVE_CLOCK_SKEW_S` (default 120 s) from the server's clock, ahead or behind: a participant's clock cannot stretch the recording. */
            timestamp_ms?: number;
            /** @enum {string} */
            type: "publish";
        };
        /**
         * LiveReconnect
         * @description This server is draining: every publish it took has been acknowledged or refused, and the connection now closes with 1001. Connect again with a fresh token (the client library does so by itself): behind a load balancer the new connection lands on another server, and the session goes on. Until then, publishes are refused with `UNAVAILABLE` and new connections to this server are closed with 1012.
         */
        LiveReconnect: {
            data: {
                message: string;
                /** @description `draining`: this server is stopping (a restart, a deploy) */
                reason: string;
            };
            /** @enum {string} */
            event: "reconnect";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the participant told */
            user_id: string;
        };
        /**
         * LiveRecordedPayload
         * @description The `body` of a `chat` or `director` message as received (and recorded): UTF-8 JSON.
         */
        LiveRecordedPayload: {
            /** @description the publishing user_id */
            actor: string;
            /** @description `{ text }` for chat, the command's `data` for director */
            data: {
                [key: string]: unknown;
            };
            /** @description ms since 1970 */
            ts: number;
            type: "chat.message" | "director.layout" | "director.focus";
            /** @enum {number} */
            v: 1;
        };
        /**
         * LiveRecording
         * @description What the session records changed: it was paused or resumed, or its rules changed (`setRecordingRules`). Sent to everybody, in every process, at once; the `welcome` of who joins later says the same. A client shows whether it is being recorded.
         */
        LiveRecording: {
            /** @description live: what the session records now */
            data: {
                /** @description the session's hosts, whom a `host` rule matches: the user id of the dashboard member who created it; empty for a session created with a key */
                hosts: string[];
                /** @description the recording rules in force (`setRecordingRules`): what they leave out is relayed live, not stored */
                rules: {
                    /**
                     * @description the rule matches every stream
                     * @enum {boolean}
                     */
                    all?: true;
                    /**
                     * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                     * @enum {boolean}
                     */
                    host?: true;
                    /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                    kind?: "cam" | "mic" | "screen" | "chat";
                    /** @description `include` records what the rule matches, `exclude` leaves it out */
                    type: "include" | "exclude";
                    /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                    user_id?: string;
                }[];
                /**
                 * @description `paused`: nothing of the call is being stored (`pauseRecording`) until it is resumed
                 * @enum {string}
                 */
                state: "recording" | "paused";
            };
            /** @enum {string} */
            event: "recording";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description `system` */
            user_id: string;
        };
        /**
         * LiveRemoved
         * @description The session's host (or the API) removed this participant (`removeParticipant`). The connection has left (the others saw `leave`), and closes with 4403 next. Final: do not reconnect; tokens issued before the removal are refused with 403.
         */
        LiveRemoved: {
            data: {
                message: string;
            };
            /** @enum {string} */
            event: "removed";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the participant removed */
            user_id: string;
        };
        /**
         * LiveReplaced
         * @description A newer connection with the same `user_id` joined the session (another tab or device, in any server process) and took this one's place: one identity has one live connection, so that two sources never publish into one track. This connection has left (the others saw `leave`, then the newer one's `join`); its further publishes are refused with `REPLACED`, and it closes with 4409. Final: do not reconnect, or the newer one would be replaced in turn.
         */
        LiveReplaced: {
            data: {
                message: string;
            };
            /** @enum {string} */
            event: "replaced";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the participant replaced */
            user_id: string;
        };
        /**
         * LiveServerMessage
         * @description What the server sends as JSON text frames.
         */
        LiveServerMessage: components["schemas"]["LiveMessage"] | components["schemas"]["LiveControl"];
        /**
         * LiveSkip
         * @description Replay connections: the recording jumps over a span in which recording was paused; it takes no time. Sent before the first message after the span.
         */
        LiveSkip: {
            data: {
                /** @description where the recording was paused, ms since 1970 */
                from_ts: number;
                /** @enum {string} */
                reason: "paused";
                /** @description where it was resumed */
                to_ts: number;
            };
            /** @enum {string} */
            event: "skip";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description `system` */
            user_id: string;
        };
        /**
         * LiveTrack
         * @description A media track started (first publish) or stopped (unpublish, or leaving); sent to everybody else.
         */
        LiveTrack: {
            data: {
                kind: "cam" | "mic" | "screen";
                /** @description `media/<user_id>/<kind>` */
                stream_type: string;
            };
            /** @enum {string} */
            event: "track.published" | "track.unpublished";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the participant concerned */
            user_id: string;
        };
        /**
         * LiveUnpublish
         * @description Client → server: stop a media track (emits `track.unpublished`).
         */
        LiveUnpublish: {
            /** @description `media/<own user_id>/cam|mic|screen`: a track published before */
            stream_type: string;
            /** @enum {string} */
            type: "unpublish";
        };
        /**
         * LiveWelcome
         * @description Sent first, to the new connection alone.
         */
        LiveWelcome: {
            data: {
                /** @description live: false for a guest of a watch-only join link (media refused, chat allowed) */
                can_publish?: boolean;
                /** @description live: the name others see for this connection (its user_id when none was given) */
                display_name?: string;
                mode: "live" | "replay";
                /** @description live: the name to show for each user id present (`{ user_id: display_name }`) */
                names?: {
                    [key: string]: string;
                };
                /** @description user ids present in every process (empty on a replay connection) */
                participants: string[];
                /** @description live: what the session records now */
                recording?: {
                    /** @description the session's hosts, whom a `host` rule matches: the user id of the dashboard member who created it; empty for a session created with a key */
                    hosts: string[];
                    /** @description the recording rules in force (`setRecordingRules`): what they leave out is relayed live, not stored */
                    rules: {
                        /**
                         * @description the rule matches every stream
                         * @enum {boolean}
                         */
                        all?: true;
                        /**
                         * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                         * @enum {boolean}
                         */
                        host?: true;
                        /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                        kind?: "cam" | "mic" | "screen" | "chat";
                        /** @description `include` records what the rule matches, `exclude` leaves it out */
                        type: "include" | "exclude";
                        /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                        user_id?: string;
                    }[];
                    /**
                     * @description `paused`: nothing of the call is being stored (`pauseRecording`) until it is resumed
                     * @enum {string}
                     */
                    state: "recording" | "paused";
                };
                session_id: string;
                user_id: string;
            };
            /** @enum {string} */
            event: "welcome";
            /** @description ms since 1970, the server's clock */
            timestamp_ms: number;
            /** @enum {string} */
            type: "control";
            /** @description the connecting participant */
            user_id: string;
        };
        /** Manifest */
        Manifest: {
            capabilities: string[];
            /** @description the last recorded timestamp, ms since 1970; timeline events written after the session ended (recording.ready, export.completed, a redaction) do not extend it */
            end_ts: number;
            epoch: number;
            participants: components["schemas"]["ManifestParticipant"][];
            session_id: string;
            /** @description the session's name (empty when it has none), so that a player can say what it plays */
            session_name: string;
            /** @description the first recorded timestamp, ms since 1970 */
            start_ts: number;
            streams: {
                chat: string;
                director: string;
                events: string;
            };
            /** @enum {number} */
            version: 1;
        };
        /** ManifestParticipant */
        ManifestParticipant: {
            /** @description the name they last joined with, or their user_id when they gave none */
            display_name: string;
            tracks: components["schemas"]["ManifestTrack"][];
            user_id: string;
        };
        /** ManifestTrack */
        ManifestTrack: {
            /** @description its last recorded timestamp, ms since 1970 */
            end_ts: number;
            kind: "cam" | "mic" | "screen";
            /** @description the intervals in which it was recorded, in order: one from start_ts to end_ts, unless recording was paused (`pauseRecording`) or the recording rules left the track out for a while (`setRecordingRules`); replay skips paused intervals and the export leaves them out */
            segments: components["schemas"]["RecordedSegment"][];
            /** @description its first recorded timestamp, ms since 1970 */
            start_ts: number;
            stream_id: string;
        };
        /** Membership */
        Membership: {
            org_id: string;
            role: string;
            user_id: string;
        };
        /** OAuthAuthorizationServerMetadata */
        OAuthAuthorizationServerMetadata: {
            authorization_endpoint: string;
            /** @description a client may also be known by an https `client_id` naming its metadata document */
            client_id_metadata_document_supported: boolean;
            code_challenge_methods_supported: string[];
            grant_types_supported: string[];
            issuer: string;
            registration_endpoint: string;
            response_types_supported: string[];
            revocation_endpoint: string;
            revocation_endpoint_auth_methods_supported: string[];
            scopes_supported: ("mcp:read" | "mcp:write")[];
            token_endpoint: string;
            token_endpoint_auth_methods_supported: string[];
        };
        /** OAuthClient */
        OAuthClient: {
            client_id: string;
            /** @description Unix seconds */
            client_id_issued_at: number;
            client_name?: string;
            /** @description `client_secret_post` only: `ocs_…`, shown this once */
            client_secret?: string;
            /** @description 0: never */
            client_secret_expires_at?: number;
            /** @description default both */
            grant_types: ("authorization_code" | "refresh_token")[];
            redirect_uris: string[];
            response_types: "code"[];
            /**
             * @description `none` (a public client, the default) or `client_secret_post` (gets a secret, once)
             * @enum {string}
             */
            token_endpoint_auth_method: "none" | "client_secret_post";
        };
        /** OAuthConsentForm */
        OAuthConsentForm: {
            /** @description the sealed request the page carried */
            consent: string;
            /** @enum {string} */
            decision: "allow" | "deny";
            /**
             * Format: uuid
             * @description the project the client may act on
             */
            project_id?: string;
        };
        /** OAuthError */
        OAuthError: {
            /** @description `invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`, `invalid_redirect_uri`, `invalid_client_metadata` */
            error: string;
            error_description: string;
        };
        /** OAuthGrant */
        OAuthGrant: {
            client_id: string;
            client_name: string | null;
            /** Format: date-time */
            created_at: string;
            id: string;
            last_used_at: string | null;
            project_id: string;
            scopes: string[];
        };
        /** OAuthProtectedResourceMetadata */
        OAuthProtectedResourceMetadata: {
            /** @description this server: {base_url} */
            authorization_servers: string[];
            bearer_methods_supported: "header"[];
            /** @description {base_url}/mcp */
            resource: string;
            resource_name: string;
            scopes_supported: ("mcp:read" | "mcp:write")[];
        };
        /** OAuthRevokeRequest */
        OAuthRevokeRequest: {
            client_id: string;
            /** @description for `client_secret_post` clients */
            client_secret?: string;
            /** @description an access or refresh token */
            token: string;
        };
        /** OAuthTokenRequest */
        OAuthTokenRequest: {
            client_id: string;
            /** @description for `client_secret_post` clients */
            client_secret?: string;
            /** @description `authorization_code`: the code of the redirect */
            code?: string;
            /** @description `authorization_code`: the PKCE verifier */
            code_verifier?: string;
            /** @enum {string} */
            grant_type: "authorization_code" | "refresh_token";
            /** @description `authorization_code`: when given, that of the authorization request */
            redirect_uri?: string;
            /** @description `refresh_token`: the latest refresh token */
            refresh_token?: string;
        };
        /** OAuthTokens */
        OAuthTokens: {
            /** @description `oat_…`, accepted by /mcp only */
            access_token: string;
            /** @description seconds: 900 */
            expires_in: number;
            /** @description `ort_…`, good for one exchange */
            refresh_token: string;
            /** @description space-separated granted scopes */
            scope: string;
            /** @enum {string} */
            token_type: "Bearer";
        };
        /** ParticipantEventData */
        ParticipantEventData: {
            /** @description the name they joined with, or their user_id when they gave none */
            display_name: string;
            /** @description the participant (`guest-…` for a guest let in by a join link) */
            user_id: string;
        };
        /** ParticipantJoinedEvent */
        ParticipantJoinedEvent: {
            data: components["schemas"]["ParticipantEventData"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "participant.joined";
        };
        /** ParticipantLeftEvent */
        ParticipantLeftEvent: {
            data: components["schemas"]["ParticipantEventData"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "participant.left";
        };
        /** PlaybackEvent */
        PlaybackEvent: {
            body_base64: string;
            seq: number;
            stream_id: string;
            timestamp_ms: number;
        };
        /** PlaybackTimeline */
        PlaybackTimeline: {
            max_ts: number;
            min_ts: number;
            /** @description participants with recorded media, as the manifest lists them: a redacted participant is not counted */
            participant_count: number;
            stream_ids: string[];
            total_events_estimated: number;
        };
        /** PlaybackWindow */
        PlaybackWindow: {
            /** @description the seq this read started from */
            base_seq: number;
            events: components["schemas"]["PlaybackEvent"][];
            /** @description pass as base_seq (from_ts unchanged) for the rest; null when the recording holds nothing further */
            next_base_seq: number | null;
        };
        /** Project */
        Project: {
            /** Format: date-time */
            created_at: string;
            /** @description the origins allowed to frame the prebuilt room `/embed/{projectId}` (none: no site may) */
            embed_origins: string[];
            environment: string | null;
            id: string;
            name: string;
            org_id: string;
        };
        /** ProviderEventReceived */
        ProviderEventReceived: {
            /** @description the provider's event id */
            id: string;
            /** @enum {boolean} */
            received: true;
        };
        /** PublicSession */
        PublicSession: {
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            ended_at: string | null;
            id: string;
            name: string;
            /** Format: date-time */
            started_at: string | null;
        };
        /** RecordedSegment */
        RecordedSegment: {
            end_ts: number;
            start_ts: number;
        };
        /** RecordingFailedData */
        RecordingFailedData: {
            /** @description why the last attempt failed */
            error: string;
            /**
             * @description `finalize`: the recording could not be announced ready; `seal`: it could not be sealed and stored in object storage
             * @enum {string}
             */
            stage: "finalize" | "seal";
        };
        /** RecordingFailedEvent */
        RecordingFailedEvent: {
            data: components["schemas"]["RecordingFailedData"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "recording.failed";
        };
        /** RecordingReadyData */
        RecordingReadyData: {
            /** @description bytes of the recorded streams */
            bytes: number;
            /** @description from the earliest to the latest recorded event over all the session's streams; 0 when nothing was recorded */
            duration_ms: number;
            /** @description recorded streams (media tracks, chat, director, the events timeline) */
            stream_count: number;
        };
        /** RecordingReadyEvent */
        RecordingReadyEvent: {
            data: components["schemas"]["RecordingReadyData"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "recording.ready";
        };
        /** RedactedParticipant */
        RedactedParticipant: {
            /** @description how many of their media streams were deleted */
            deletedStreams: number;
            /** @description the redacted participant */
            redacted: string;
        };
        /** RegisteredUser */
        RegisteredUser: {
            /** Format: date-time */
            created_at: string;
            email: string;
            id: string;
            org_id: string;
            /** @description the project created with the account, named "Default" */
            project_id: string;
            role: components["schemas"]["Role"];
        };
        /** RemovedParticipant */
        RemovedParticipant: {
            /** @enum {boolean} */
            removed: true;
            session_id: string;
            user_id: string;
        };
        /** ReplayLink */
        ReplayLink: {
            /** Format: date-time */
            expires_at: string;
            /** @description names the link to revoke it alone (`DELETE …/replay-links/{linkId}`) */
            id: string;
            /** @description {base_url}/v1/public/sessions/{sessionId}/replay?token={token} */
            link: string;
            token: string;
        };
        /** RestrictedKey */
        RestrictedKey: {
            /** Format: date-time */
            created_at: string;
            id: string;
            label: string | null;
            /**
             * Format: date-time
             * @description updated at most once a minute
             */
            last_used_at: string | null;
            /** @description the first 12 characters of the secret, for recognition */
            prefix: string;
            project_id: string;
        };
        /** RevokedReplayLinks */
        RevokedReplayLinks: {
            /** @description how many links were revoked */
            revoked: number;
            session_id: string;
        };
        /**
         * Role
         * @enum {string}
         */
        Role: "owner" | "admin" | "member";
        /** Session */
        Session: {
            /** Format: date-time */
            created_at: string;
            /** @description "api_key" for an API key, "restricted_key" for a restricted key, the user id for a dashboard user */
            created_by: string;
            /** Format: date-time */
            ended_at: string | null;
            id: string;
            is_public: boolean;
            name: string;
            project_id: string;
            /** Format: date-time */
            started_at: string | null;
        };
        /** SessionCreatedEvent */
        SessionCreatedEvent: {
            data: components["schemas"]["Session"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "session.created";
        };
        /** SessionEndedEvent */
        SessionEndedEvent: {
            data: components["schemas"]["Session"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "session.ended";
        };
        /** SessionStartedEvent */
        SessionStartedEvent: {
            data: components["schemas"]["Session"];
            /**
             * Format: uuid
             * @description the event id, the same in every attempt at this event (and in `X-Service-Event-Id` and `webhook-id`): receivers deduplicate on it
             */
            id: string;
            /** Format: uuid */
            project_id: string;
            /** Format: uuid */
            session_id: string;
            /**
             * Format: date-time
             * @description when the event happened (ISO 8601 UTC, milliseconds), not when this attempt was sent
             */
            timestamp: string;
            /** @enum {string} */
            type: "session.started";
        };
        /** SignedOut */
        SignedOut: {
            signed_out: boolean;
        };
        /** TimelineEvent */
        TimelineEvent: {
            actor: string;
            data: {
                [key: string]: unknown;
            };
            seq: number;
            ts: number;
            type: string;
            v: number;
        };
        /** Usage */
        Usage: {
            /** @description newest first; the next page is in the `Link` header */
            records: components["schemas"]["UsageRecord"][];
            summary: components["schemas"]["UsageTotals"];
        };
        /** UsageDay */
        UsageDay: {
            /**
             * Format: date
             * @description a UTC day
             */
            date: string;
            /** @description bytes stored at the end of that day */
            storage_bytes: number;
            /** @description participant-minutes recorded that day */
            streaming_minutes: number;
        };
        /** UsageRecord */
        UsageRecord: {
            id: string;
            project_id: string;
            /** Format: date-time */
            recorded_at: string;
            session_id: string;
            /** @description `streaming_minutes`: participant-minutes of live connections since the previous record of the same process (fractional); `storage_bytes`: the change of the session's stored bytes (recording and export files), negative when bytes were deleted */
            usage_type: string;
            value: number;
        };
        /** UsageTotals */
        UsageTotals: {
            /** @description bytes stored at the end of the range (storage is a level: `from` does not apply to it) */
            storage_bytes_total: number;
            /** @description participant-minutes recorded in the range */
            streaming_minutes_total: number;
        };
        /** User */
        User: {
            /** Format: date-time */
            created_at: string;
            email: string;
            id: string;
            org_id: string;
            role: components["schemas"]["Role"];
        };
        /** Webhook */
        Webhook: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            events: components["schemas"]["WebhookEventType"][];
            id: string;
            is_active: boolean;
            project_id: string;
            url: string;
        };
        /** WebhookDelivery */
        WebhookDelivery: {
            /** @description 1 for the first attempt at this event, counting up with its retries; a redelivery is an attempt of its own, numbered 1 */
            attempt: number;
            /** Format: date-time */
            created_at: string;
            duration_ms: number | null;
            /** @description why the attempt failed */
            error: string | null;
            event_id: string;
            event_type: string;
            id: string;
            /** Format: date-time */
            next_attempt_at: string | null;
            /** @description the body sent, parsed: the same bytes on every attempt at the event. Kept as long as a delivery of the event is in the log; null only if it is gone */
            payload: components["schemas"]["WebhookEventPayload"] | null;
            /** @description the `id` of the delivery this row sends again (`redeliverWebhookDelivery`); null for deliveries of the event as it happened and their retries */
            redelivery_of: string | null;
            /** @description the receiver's HTTP status, null when none came */
            response_status: number | null;
            /**
             * @description what happened to this attempt: `succeeded` (the receiver answered 2xx) or `failed` (anything else; `next_attempt_at` says when the next attempt is scheduled, null when none remains). `pending`: a redelivery asked for and not yet made; it becomes `succeeded` or `failed` once sent.
             * @enum {string}
             */
            status: "succeeded" | "failed" | "pending";
        };
        /** WebhookEventPayload */
        WebhookEventPayload: {
            /** @description by type: see the `webhooks` section of this document */
            data: unknown;
            /** @description the event id (`X-Service-Event-Id`, `webhook-id`) */
            id: string;
            project_id: string;
            session_id: string | null;
            /** Format: date-time */
            timestamp: string;
            type: string;
        };
        /**
         * WebhookEventType
         * @enum {string}
         */
        WebhookEventType: "session.created" | "session.started" | "session.ended" | "recording.ready" | "export.completed" | "participant.joined" | "participant.left" | "recording.failed" | "export.failed";
        /** WebhookTestQueued */
        WebhookTestQueued: {
            event_id: string;
            /** @enum {string} */
            type: "webhook.test";
        };
        /** WebhookWithSecret */
        WebhookWithSecret: {
            /** Format: date-time */
            created_at: string;
            description: string | null;
            events: components["schemas"]["WebhookEventType"][];
            id: string;
            is_active: boolean;
            project_id: string;
            /** @description shown here only: `whsec_` + base64 of 32 random bytes. `X-Service-Signature` is HMAC-SHA256 keyed with this whole string; the Standard Webhooks `webhook-signature` is keyed with the bytes of its base64 part */
            secret: string;
            url: string;
        };
    };
    responses: {
        /** @description Refused: the error envelope. `code` names the reason (BAD_REQUEST 400, UNAUTHORIZED 401, FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, RATE_LIMITED 429, …: the list is in the document's description) and `message` the offending field; the operation's description says which apply. */
        ClientError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
        /** @description Failed on the server (SERVER_ERROR 500), or refused because the organisation is over its free tier without a subscription (USAGE_LIMITS_EXCEEDED 503, on session creation and export only), or because Redis cannot be reached for what needs it (SERVICE_UNAVAILABLE 503, with `Retry-After`): the error envelope. */
        ServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorEnvelope"];
            };
        };
    };
    parameters: never;
    requestBodies: {
        AutoExportInput: {
            content: {
                "application/json": {
                    /** @description true: every session of the project whose recording becomes ready is exported */
                    enabled: boolean;
                    options: components["schemas"]["AutoExportOptionsInput"];
                };
            };
        };
        BillingPortalRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description where the portal sends the person back: an address on `PUBLIC_BASE_URL`'s origin or on one `BILLING_RETURN_ORIGINS` lists (scheme, host and port must match); default `{PUBLIC_BASE_URL}/billing`
                     */
                    return_url?: string;
                };
            };
        };
        ConnectionRequest: {
            content: {
                "application/json": {
                    /** @description the name shown for the participant: 1 to 64 characters of any script once trimmed, at least one of them visible; spaces allowed, no control character; a character is what a person counts as one (a family emoji, a letter with its accents), and the request carries at most 1024 UTF-16 units (e.g. "Ana María", "山田 太郎") */
                    display_name?: string;
                    /** @description replay only this stream (e.g. media/u1/cam) or this user's media */
                    focus?: string;
                    /** @description replay start, ms since 1970 */
                    from_ts?: number;
                    /** @description true for replay mode; omitted or false for live */
                    replay?: boolean;
                    /** @description replay speed, 0.25 to 16 (default 1) */
                    speed?: number;
                    /** @description the participant; 1 to 128 characters, no "/", white space or control character, and not "." or "..". Required with a key. Never begins with `guest-` (the ids of join links' guests). A restricted key mints only ids beginning with `app-` (its app's own users). With the dashboard cookie the token is always for the member's own account: leave it out, or give that id */
                    user_id?: string;
                };
            };
        };
        CreateAgentTokenRequest: {
            content: {
                "application/json": {
                    /** @description default: never */
                    expires_in_days?: number;
                    label?: string | null;
                    /**
                     * Format: uuid
                     * @description defaults to the user's first project
                     */
                    project_id?: string;
                    /** @description `mcp:read` (read tools), `mcp:write` (tools that change things); at least one */
                    scopes: ("mcp:read" | "mcp:write")[];
                };
            };
        };
        CreateApiKeyRequest: {
            content: {
                "application/json": {
                    /** @description free text to recognise the key by, 1 to 200 characters, or null */
                    label?: string | null;
                };
            };
        };
        CreateInvitationRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description compared case-insensitively
                     */
                    email: string;
                    /** @enum {string} */
                    role: "admin" | "member";
                };
            };
        };
        CreateJoinLinkRequest: {
            content: {
                "application/json": {
                    /** @description default true; false: its guests watch and chat, and their camera, microphone, screen and director commands are refused (`FORBIDDEN_STREAM`) */
                    can_publish?: boolean;
                    /** @description 1 to 43200 (30 days); default 1440 (one day) */
                    expires_in_minutes?: number;
                    /** @description how many guests may join with it, 1 to 10000; default: no limit until it expires */
                    max_uses?: number;
                };
            };
        };
        CreateProjectRequest: {
            content: {
                "application/json": {
                    /**
                     * @description `development`, `staging`, `production`, or null when not set
                     * @enum {string|null}
                     */
                    environment?: "development" | "staging" | "production" | null;
                    /** @description 1 to 200 characters */
                    name: string;
                };
            };
        };
        CreateReplayLinkRequest: {
            content: {
                "application/json": {
                    /** @description 1 to 43200 (30 days); default 1440 (one day) */
                    expires_in_minutes?: number;
                };
            };
        };
        CreateRestrictedKeyRequest: {
            content: {
                "application/json": {
                    /** @description free text to recognise the key by, 1 to 200 characters, or null */
                    label?: string | null;
                    /**
                     * Format: uuid
                     * @description defaults to the caller's project
                     */
                    project_id?: string;
                };
            };
        };
        CreateSessionRequest: {
            content: {
                "application/json": {
                    /** @description at most 200 characters; default "" */
                    name?: string;
                };
            };
        };
        CreateWebhookRequest: {
            content: {
                "application/json": {
                    /** @description free text, up to 500 characters; tab, line feed and carriage return are kept, other control characters refused */
                    description?: string | null;
                    /** @description the event types to receive, at least one, each once */
                    events: components["schemas"]["WebhookEventType"][];
                    /** @default true */
                    is_active?: boolean;
                    /** @description receiver address: `https://…`; no user name or password in it. Unless the server runs with `WEBHOOK_ALLOW_PRIVATE_URLS=true` (which also allows plain `http`), a host may not be, or resolve to, an address that is not globally reachable: every special-purpose range of the IANA IPv4 and IPv6 registries (loopback, private, shared, link-local with the cloud metadata addresses, unspecified, documentation, benchmarking, reserved), multicast, and IPv6 outside 2000::/3. The IPv6 ranges that embed an IPv4 address (IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo in `2001::/23`) are refused whole, whatever the IPv4 address inside. A literal address or a `localhost` name is refused here with 400; a name is resolved and checked at every delivery attempt, and an attempt to a refused address fails without connecting. */
                    url: string;
                };
            };
        };
        ExportOptions: {
            content: {
                "application/json": {
                    /** @description presenter layout only: the user id of a participant with video (camera or screen) in the session, shown large for the whole export. Without it the large tile follows the recording’s `director.focus` commands, starting with the first participant. */
                    focus?: string;
                    /**
                     * @description `mp4`: the pictures and the sound. `m4a`: the sound alone (every microphone mixed, AAC in an MPEG-4 audio file, `audio/mp4`), for transcription or a podcast; no video is read or encoded, so it is made many times faster; it lasts from the first recorded sound to the last (409 when no microphone was recorded), and `layout`, `orientation`, `resolution`, `focus` and `names` do not apply.
                     * @default mp4
                     * @enum {string}
                     */
                    format?: "mp4" | "m4a";
                    /** @description A clip: where it starts, on the session's clock (ms since 1970, as the timeline, the manifest and replay use). Only that span is read, decoded and encoded, so a minute of an hour costs a minute. Default: the first recorded frame. A clip reaching beyond the recording is cut to it; one wholly outside it is refused. */
                    from_ts?: number;
                    /**
                     * @description What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence.
                     * @default false
                     */
                    keep_gaps?: boolean;
                    /**
                     * @description `grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip. `speaker`: the presenter layout whose large tile follows whoever is speaking, decided from the microphones' sound level (someone must speak for most of a second to take it: a cough does not), starting with the first participant until someone speaks; a screen share still takes it while on.
                     * @default grid
                     * @enum {string}
                     */
                    layout?: "grid" | "presenter" | "speaker";
                    /**
                     * @description Draw each video tile's name bar: the participant's display name (the user id where none was given). `false` leaves the pictures bare; a tile whose camera is off still shows the name in its middle.
                     * @default true
                     */
                    names?: boolean;
                    /**
                     * @description `landscape` (1280x720, or 1920x1080 at 1080p) or `vertical` (720x1280, or 1080x1920)
                     * @default landscape
                     * @enum {string}
                     */
                    orientation?: "landscape" | "vertical";
                    /**
                     * @description `720p` (1280x720 or 720x1280) or `1080p` (1920x1080 or 1080x1920: the same layout drawn 1.5 times larger, names included).
                     * @default 720p
                     * @enum {string}
                     */
                    resolution?: "720p" | "1080p";
                    /** @description A clip: where it ends (exclusive), ms since 1970; after `from_ts`. Default: the last recorded frame. Paused spans inside a clip are cut out like any other unless `keep_gaps`. */
                    to_ts?: number;
                };
            };
        };
        JoinRequest: {
            content: {
                "application/json": {
                    /** @description the name shown for the participant: 1 to 64 characters of any script once trimmed, at least one of them visible; spaces allowed, no control character; a character is what a person counts as one (a family emoji, a letter with its accents), and the request carries at most 1024 UTF-16 units (e.g. "Ana María", "山田 太郎") */
                    display_name: string;
                    /** @description the `rejoin_token` of this link's earlier answer: the same guest comes back (same `user_id`, no use taken), e.g. to reconnect once its 300-second connection token expired; refused with 403 once the guest was removed */
                    rejoin_token?: string;
                };
            };
        };
        JsonRpcRequest: {
            content: {
                "application/json": {
                    id?: string | number | null;
                    /** @enum {string} */
                    jsonrpc: "2.0";
                    /** @description e.g. `initialize`, `tools/list`, `tools/call`, `resources/read` */
                    method: string;
                    params?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        OAuthClientRegistrationRequest: {
            content: {
                "application/json": {
                    /** @description shown on the consent page */
                    client_name?: string;
                    /** @description default both */
                    grant_types?: ("authorization_code" | "refresh_token")[];
                    /** @description https, http on a loopback address, or a private-use scheme; matched exactly at authorization */
                    redirect_uris: string[];
                    /**
                     * @description `none` (a public client, the default) or `client_secret_post` (gets a secret, once)
                     * @enum {string}
                     */
                    token_endpoint_auth_method?: "none" | "client_secret_post";
                };
            };
        };
        RedeemInvitationRequest: {
            content: {
                "application/json": {
                    token: string;
                };
            };
        };
        RegisterRequest: {
            content: {
                "application/json": {
                    /**
                     * Format: email
                     * @description compared case-insensitively
                     */
                    email: string;
                    /** @description 8 to 256 characters, never truncated */
                    password: string;
                };
            };
        };
        RelabelKeyRequest: {
            content: {
                "application/json": {
                    /** @description free text to recognise the key by, 1 to 200 characters, or null */
                    label: string | null;
                };
            };
        };
        SetMemberRoleRequest: {
            content: {
                "application/json": {
                    role: components["schemas"]["Role"];
                };
            };
        };
        SetVisibilityRequest: {
            content: {
                "application/json": {
                    is_public: boolean;
                };
            };
        };
        SignInRequest: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        /** @description a Stripe event, verified over its raw bytes with `Stripe-Signature` */
        StripeEvent: {
            content: {
                "application/json": Record<string, never>;
            };
        };
        UpdateProjectRequest: {
            content: {
                "application/json": {
                    /** @description The sites allowed to frame this project's prebuilt room (`/embed/{projectId}`), as its `Content-Security-Policy: frame-ancestors`: at most 20 exact origins, `https://host[:port]`, or `http://` for localhost, 127.0.0.1 and [::1]; no path, query, fragment, wildcard or trailing slash. Replaces the list; `[]` lets no site frame it (the default). Every other page of the server may never be framed. */
                    embed_origins?: string[];
                    /**
                     * @description `development`, `staging`, `production`, or null when not set
                     * @enum {string|null}
                     */
                    environment?: "development" | "staging" | "production" | null;
                    /** @description 1 to 200 characters */
                    name?: string;
                };
            };
        };
        UpdateWebhookRequest: {
            content: {
                "application/json": {
                    /** @description free text, up to 500 characters; tab, line feed and carriage return are kept, other control characters refused */
                    description?: string | null;
                    /** @description the event types to receive, at least one, each once */
                    events?: components["schemas"]["WebhookEventType"][];
                    is_active?: boolean;
                    /** @description receiver address: `https://…`; no user name or password in it. Unless the server runs with `WEBHOOK_ALLOW_PRIVATE_URLS=true` (which also allows plain `http`), a host may not be, or resolve to, an address that is not globally reachable: every special-purpose range of the IANA IPv4 and IPv6 registries (loopback, private, shared, link-local with the cloud metadata addresses, unspecified, documentation, benchmarking, reserved), multicast, and IPv6 outside 2000::/3. The IPv6 ranges that embed an IPv4 address (IPv4-compatible `::/96`, IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo in `2001::/23`) are refused whole, whatever the IPv4 address inside. A literal address or a `localhost` name is refused here with 400; a name is resolved and checked at every delivery attempt, and an attempt to a refused address fails without connecting. */
                    url?: string;
                };
            };
        };
    };
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOAuthServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The metadata (RFC 8414, not the envelope). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthAuthorizationServerMetadata"];
                };
            };
        };
    };
    getMcpResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The metadata (RFC 9728, not the envelope). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthProtectedResourceMetadata"];
                };
            };
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            /** @description The service is up: storage is intact and the database answers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ok";
                };
            };
            /** @description Unavailable: `database unavailable`, or `storage unavailable: …` naming what was removed or replaced. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    callMcp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JsonRpcRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The JSON-RPC answer to the request. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcResponse"];
                };
            };
            /** @description Accepted: the message was a notification (no `id`), which has no answer. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A batch, or a message that is not JSON-RPC: a JSON-RPC error. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcResponse"];
                };
            };
            /** @description No agent token or OAuth access token, or a bad one: the error envelope. */
            401: {
                headers: {
                    /** @description `Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/mcp"` */
                    "WWW-Authenticate"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description An `Origin` header other than `PUBLIC_BASE_URL`'s origin: the error envelope. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description `Accept` does not name both `application/json` and `text/event-stream`: a JSON-RPC error. */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcResponse"];
                };
            };
            /** @description The call failed on the server: a JSON-RPC error. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JsonRpcResponse"];
                };
            };
        };
    };
    authorizeOAuthClient: {
        parameters: {
            query: {
                /** @description a registered client id, or the https address of its metadata document */
                client_id: string;
                /** @description PKCE, S256 */
                code_challenge: string;
                code_challenge_method: "S256";
                /** @description one the client registered; may be left out when it registered only one */
                redirect_uri?: string;
                response_type: "code";
                /** @description space-separated `mcp:read` and/or `mcp:write`; default `mcp:read` */
                scope?: string;
                /** @description returned unchanged with the redirect */
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The consent page, or, without a login cookie, a page asking to sign in first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description A page explaining why the request cannot be authorized. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    answerOAuthConsent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["OAuthConsentForm"];
            };
        };
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Back to the client: its `redirect_uri` with `code` (or `error=access_denied`), `state` and `iss`. */
            302: {
                headers: {
                    /** @description the redirect address */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A page explaining why the answer cannot be used (altered or expired form). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description A page asking to sign in again: the login session has ended. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    registerOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["OAuthClientRegistrationRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The registered client (RFC 7591, not the envelope). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClient"];
                };
            };
            /** @description `invalid_redirect_uri` or `invalid_client_metadata`, in OAuth form. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    revokeOAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthRevokeRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["OAuthRevokeRequest"];
            };
        };
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Done (or nothing to revoke): an empty object. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description `invalid_client`: unknown client, or a missing or wrong secret. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    exchangeOAuthToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthTokenRequest"];
                "application/x-www-form-urlencoded": components["schemas"]["OAuthTokenRequest"];
            };
        };
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description New tokens (RFC 6749, not the envelope). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthTokens"];
                };
            };
            /** @description `invalid_grant` or `unsupported_grant_type`, in OAuth form. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description `invalid_client`: unknown client, a missing or wrong secret, or a metadata document that could not be fetched within `OAUTH_CLIENT_METADATA_TIMEOUT_MS` (no further detail is given). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    getReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            /** @description This process takes work. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": "ready";
                };
            };
            /** @description Not now: `draining`, `database unavailable`, `redis unavailable`, `storage unavailable: …` or `storage not writable: …`. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
        };
    };
    listAgentActivity: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of tool calls, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AgentActivity"][];
                        error: null;
                    };
                };
            };
        };
    };
    listAgentTokens: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of agent tokens. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AgentToken"][];
                        error: null;
                    };
                };
            };
        };
    };
    createAgentToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateAgentTokenRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new token, with its secret (shown this once). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedAgentToken"];
                        error: null;
                    };
                };
            };
        };
    };
    deleteAgentToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tokenId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The token was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
                /** @description only the keys of this project */
                project_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of API keys. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"][];
                        error: null;
                    };
                };
            };
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The key was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    relabelApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["RelabelKeyRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The key with its new label. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ApiKey"];
                        error: null;
                    };
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["SignInRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The signed-in user; the `service_session` cookie is set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["User"];
                        error: null;
                    };
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Signed out; the cookie is cleared. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["SignedOut"];
                        error: null;
                    };
                };
            };
        };
    };
    registerAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["RegisterRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new user with their organisation and Default project; the `service_session` cookie is set. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RegisteredUser"];
                        error: null;
                    };
                };
            };
        };
    };
    getSignInState: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The signed-in user, or null. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["User"] | null;
                        error: null;
                    };
                };
            };
        };
    };
    getBillingLimits: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The limits and where the organisation stands. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BillingLimits"];
                        error: null;
                    };
                };
            };
        };
    };
    openBillingPortal: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["BillingPortalRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The portal session to send the person to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BillingPortal"];
                        error: null;
                    };
                };
            };
        };
    };
    receiveStripeEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["StripeEvent"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The event was applied (or had been already). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ProviderEventReceived"];
                        error: null;
                    };
                };
            };
        };
    };
    getBillingSummary: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description This month's usage and cost. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BillingSummary"];
                        error: null;
                    };
                };
            };
        };
    };
    getExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The export job. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ExportJob"];
                        error: null;
                    };
                };
            };
        };
    };
    downloadExport: {
        parameters: {
            query?: {
                /** @description With object storage configured (`S3_BUCKET`): answer 302 with `Location` a presigned URL of the MP4 in the bucket, valid for 5 minutes, which serves the same bytes (and `Range`) straight from the bucket. Without object storage the file is sent as usual. */
                redirect?: boolean;
            };
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The whole MP4. */
            200: {
                headers: {
                    "Accept-Ranges"?: "bytes";
                    /** @description The file named after the session: `attachment; filename="{ASCII name}"; filename*=UTF-8''{name, percent-encoded}`. The name is the session's (characters no file name may hold, such as `/` or `:`, as spaces; `Untitled session` when it has none), then for the whole recording the day it started (UTC), e.g. `Weekly sync 2026-11-28.mp4`, and for a clip (`from_ts`, `to_ts`) its span as hours, minutes and seconds from the recording's start, e.g. `Weekly sync 00-01-05–00-02-10.mp4`; `.m4a` for `format=m4a`. `filename` spells it in ASCII (accents dropped, other characters as `_`, the dash as `-`). */
                    "Content-Disposition"?: string;
                    /** @description bytes in this answer */
                    "Content-Length"?: number;
                    /** @description names this rendering: send it back in `If-Range` */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "audio/mp4": string;
                    "video/mp4": string;
                };
            };
            /** @description The requested byte range of the MP4. */
            206: {
                headers: {
                    "Accept-Ranges"?: "bytes";
                    /** @description The file named after the session: `attachment; filename="{ASCII name}"; filename*=UTF-8''{name, percent-encoded}`. The name is the session's (characters no file name may hold, such as `/` or `:`, as spaces; `Untitled session` when it has none), then for the whole recording the day it started (UTC), e.g. `Weekly sync 2026-11-28.mp4`, and for a clip (`from_ts`, `to_ts`) its span as hours, minutes and seconds from the recording's start, e.g. `Weekly sync 00-01-05–00-02-10.mp4`; `.m4a` for `format=m4a`. `filename` spells it in ASCII (accents dropped, other characters as `_`, the dash as `-`). */
                    "Content-Disposition"?: string;
                    /** @description bytes in this answer */
                    "Content-Length"?: number;
                    /** @description `bytes {start}-{end}/{size}` */
                    "Content-Range"?: string;
                    /** @description names this rendering: send it back in `If-Range` */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "audio/mp4": string;
                    "video/mp4": string;
                };
            };
            /** @description With `redirect=true` and object storage configured: the MP4's presigned URL in the bucket, valid for 5 minutes. */
            302: {
                headers: {
                    /** @description the presigned URL */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    listInvitations: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of invitations, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Invitation"][];
                        error: null;
                    };
                };
            };
        };
    };
    revokeInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                invitationId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The invitation was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    describeInvitation: {
        parameters: {
            query: {
                /** @description the token of the invitation link */
                token: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description What the invitation offers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["InvitationDescription"];
                        error: null;
                    };
                };
            };
        };
    };
    redeemInvitation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["RedeemInvitationRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The user is now a member of the inviting organisation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Membership"];
                        error: null;
                    };
                };
            };
        };
    };
    describeJoinLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the join link's token */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The session the link opens. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["JoinLinkInfo"];
                        error: null;
                    };
                };
            };
        };
    };
    joinWithLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the join link's token */
                token: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["JoinRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A live connection token for the guest. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["GuestToken"];
                        error: null;
                    };
                };
            };
        };
    };
    getCurrentUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The user the cookie belongs to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["User"];
                        error: null;
                    };
                };
            };
        };
    };
    listMembers: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of members. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["User"][];
                        error: null;
                    };
                };
            };
        };
    };
    removeMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The member was removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    setMemberRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                userId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["SetMemberRoleRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The member with the new role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["User"];
                        error: null;
                    };
                };
            };
        };
    };
    listOAuthGrants: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of grants, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["OAuthGrant"][];
                        error: null;
                    };
                };
            };
        };
    };
    revokeOAuthGrant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grantId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The grant was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    listProjects: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of projects. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"][];
                        error: null;
                    };
                };
            };
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateProjectRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new project. */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"];
                        error: null;
                    };
                };
            };
        };
    };
    getProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The project. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"];
                        error: null;
                    };
                };
            };
        };
    };
    updateProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UpdateProjectRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The project as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Project"];
                        error: null;
                    };
                };
            };
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateApiKeyRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new key, with its secret (shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedApiKey"];
                        error: null;
                    };
                };
            };
        };
    };
    getAutoExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The project's auto-export preset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AutoExport"];
                        error: null;
                    };
                };
            };
        };
    };
    setAutoExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["AutoExportInput"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The preset as set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["AutoExport"];
                        error: null;
                    };
                };
            };
        };
    };
    openProjectBillingPortal: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["BillingPortalRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The portal session to send the person to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["BillingPortal"];
                        error: null;
                    };
                };
            };
        };
    };
    createInvitation: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateInvitationRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The invitation, with its token and accept URL (shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedInvitation"];
                        error: null;
                    };
                };
            };
        };
    };
    listProjectSessions: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of sessions, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"][];
                        error: null;
                    };
                };
            };
        };
    };
    createProjectSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateSessionRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new session. */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"];
                        error: null;
                    };
                };
            };
        };
    };
    getProjectSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                projectId: string;
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"];
                        error: null;
                    };
                };
            };
        };
    };
    getProjectUsage: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description only records at or after this time (ISO 8601, with a time zone) */
                from?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
                /** @description only the records of this session */
                session_id?: string;
                /** @description only records before this time (ISO 8601, with a time zone); must be after `from` */
                to?: string;
            };
            header?: never;
            path: {
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of usage records, with the totals. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Usage"];
                        error: null;
                    };
                };
            };
        };
    };
    listPublicSessions: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of public sessions, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PublicSession"][];
                        error: null;
                    };
                };
            };
        };
    };
    getPublicManifest: {
        parameters: {
            query?: {
                /** @description replay link token */
                token?: string;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The manifest. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Manifest"];
                        error: null;
                    };
                };
            };
        };
    };
    getPublicPlaybackWindow: {
        parameters: {
            query: {
                /** @description continue from this seq: the `next_base_seq` of the previous answer */
                base_seq?: number;
                /** @description start of reading, ms since 1970 */
                from_ts: number;
                /** @description ms, 1 to 300000 (default 30000) */
                window_size?: number;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description One window of events, streamed (chunked). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PlaybackWindow"];
                        error: null;
                    };
                };
            };
        };
    };
    getPublicPlaybackTimeline: {
        parameters: {
            query?: {
                /** @description replay link token */
                token?: string;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The timeline metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PlaybackTimeline"];
                        error: null;
                    };
                };
            };
        };
    };
    getReplayWindow: {
        parameters: {
            query?: {
                /** @description continue from this seq: the `next_base_seq` of the previous answer */
                base_seq?: number;
                /** @description start of reading, ms since 1970; default: the recording's first event, so that a replay link opens as returned */
                from_ts?: number;
                /** @description replay link token */
                token?: string;
                /** @description ms, 1 to 300000 (default 30000) */
                window_size?: number;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description One window of events, streamed (chunked). A browser (`Accept` naming `text/html` first) gets the dashboard's player page instead. */
            200: {
                headers: {
                    /** @description the answer depends on `Accept` */
                    Vary?: "Accept";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PlaybackWindow"];
                        error: null;
                    };
                    "text/html": string;
                };
            };
        };
    };
    getPublicStoryboardSprite: {
        parameters: {
            query?: {
                /** @description a replay link's token: opens the storyboard of that session, public or not, while the link is valid */
                token?: string;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The JPEG sprite. */
            200: {
                headers: {
                    /** @description names this making of the storyboard */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
        };
    };
    getPublicStoryboardVtt: {
        parameters: {
            query?: {
                /** @description a replay link's token: opens the storyboard of that session, public or not, while the link is valid */
                token?: string;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The WebVTT. */
            200: {
                headers: {
                    /** @description names this making of the storyboard */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/vtt": string;
                };
            };
        };
    };
    getPublicTimeline: {
        parameters: {
            query?: {
                /** @description replay link token */
                token?: string;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Every timeline event, in order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TimelineEvent"][];
                        error: null;
                    };
                };
            };
        };
    };
    listRestrictedKeys: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
                /** @description only the keys of this project */
                project_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of restricted keys. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RestrictedKey"][];
                        error: null;
                    };
                };
            };
        };
    };
    createRestrictedKey: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateRestrictedKeyRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new restricted key, with its secret (shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["CreatedRestrictedKey"];
                        error: null;
                    };
                };
            };
        };
    };
    deleteRestrictedKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The key was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    relabelRestrictedKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                keyId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["RelabelKeyRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The key with its new label. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RestrictedKey"];
                        error: null;
                    };
                };
            };
        };
    };
    listSessions: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of sessions, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"][];
                        error: null;
                    };
                };
            };
        };
    };
    createSession: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateSessionRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new session. */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"];
                        error: null;
                    };
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Session"];
                        error: null;
                    };
                };
            };
        };
    };
    deleteSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The session and its recording were deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    createConnectionToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["ConnectionRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A token for `connectLive`, valid 300 seconds. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ConnectionToken"];
                        error: null;
                    };
                };
            };
        };
    };
    enqueueExport: {
        parameters: {
            query?: {
                /** @description presenter layout only: the user id of a participant with video (camera or screen) in the session, shown large for the whole export. Without it the large tile follows the recording’s `director.focus` commands, starting with the first participant. */
                focus?: string;
                /** @description `mp4`: the pictures and the sound. `m4a`: the sound alone (every microphone mixed, AAC in an MPEG-4 audio file, `audio/mp4`), for transcription or a podcast; no video is read or encoded, so it is made many times faster; it lasts from the first recorded sound to the last (409 when no microphone was recorded), and `layout`, `orientation`, `resolution`, `focus` and `names` do not apply. */
                format?: "mp4" | "m4a";
                /** @description A clip: where it starts, on the session's clock (ms since 1970, as the timeline, the manifest and replay use). Only that span is read, decoded and encoded, so a minute of an hour costs a minute. Default: the first recorded frame. A clip reaching beyond the recording is cut to it; one wholly outside it is refused. */
                from_ts?: number;
                /** @description What to do with the spans in which the session's recording was paused (`POST /v1/sessions/{sessionId}/recording/pause` to `/resume`), when nothing but the timeline was recorded. `false` (default): they are cut out, so the MP4 is shorter by them and every camera, screen and microphone jumps from the pause to the resume together, in sync. `true`: the MP4 keeps the session's own clock, and shows each paused span as it shows any gap: names on their colours, and silence. */
                keep_gaps?: boolean;
                /** @description `grid`: every participant with video in one balanced grid. `presenter`: one participant (or a screen share, while it is on) large, the others in a strip. `speaker`: the presenter layout whose large tile follows whoever is speaking, decided from the microphones' sound level (someone must speak for most of a second to take it: a cough does not), starting with the first participant until someone speaks; a screen share still takes it while on. */
                layout?: "grid" | "presenter" | "speaker";
                /** @description Draw each video tile's name bar: the participant's display name (the user id where none was given). `false` leaves the pictures bare; a tile whose camera is off still shows the name in its middle. */
                names?: boolean;
                /** @description `landscape` (1280x720, or 1920x1080 at 1080p) or `vertical` (720x1280, or 1080x1920) */
                orientation?: "landscape" | "vertical";
                /** @description `720p` (1280x720 or 720x1280) or `1080p` (1920x1080 or 1080x1920: the same layout drawn 1.5 times larger, names included). */
                resolution?: "720p" | "1080p";
                /** @description A clip: where it ends (exclusive), ms since 1970; after `from_ts`. Default: the last recorded frame. Paused spans inside a clip are cut out like any other unless `keep_gaps`. */
                to_ts?: number;
            };
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Queued: poll the job with `getExport`. */
            202: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * Format: uuid
                             * @description poll GET /v1/exports/{jobId}
                             */
                            job_id: string;
                        };
                        error: null;
                    };
                };
            };
        };
    };
    listSessionExports: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Every export of the session, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ExportJob"][];
                        error: null;
                    };
                };
            };
        };
    };
    createExport: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["ExportOptions"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Queued: poll the job with `getExport`. */
            202: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /**
                             * Format: uuid
                             * @description poll GET /v1/exports/{jobId}
                             */
                            job_id: string;
                        };
                        error: null;
                    };
                };
            };
        };
    };
    listJoinLinks: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of join links, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ListedJoinLink"][];
                        error: null;
                    };
                };
            };
        };
    };
    createJoinLink: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateJoinLinkRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The link with its token (shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["JoinLink"];
                        error: null;
                    };
                };
            };
        };
    };
    revokeJoinLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                linkId: string;
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The link was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    getManifest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The manifest. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Manifest"];
                        error: null;
                    };
                };
            };
        };
    };
    redactParticipant: {
        parameters: {
            query?: {
                /** @description also replace the participant's chat bodies with a redaction marker */
                include_chat?: boolean;
            };
            header?: never;
            path: {
                sessionId: string;
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The participant was redacted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RedactedParticipant"];
                        error: null;
                    };
                };
            };
        };
    };
    removeParticipant: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
                /** @description the participant; 1 to 128 characters, no "/", white space or control character, and not "." or ".." (it names media streams and is a path segment of the API) */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The participant was removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RemovedParticipant"];
                        error: null;
                    };
                };
            };
        };
    };
    getPlaybackWindow: {
        parameters: {
            query: {
                /** @description continue from this seq: the `next_base_seq` of the previous answer */
                base_seq?: number;
                /** @description start of reading, ms since 1970 */
                from_ts: number;
                /** @description ms, 1 to 300000 (default 30000) */
                window_size?: number;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description One window of events, streamed (chunked). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PlaybackWindow"];
                        error: null;
                    };
                };
            };
        };
    };
    getPlaybackTimeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The timeline metadata. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["PlaybackTimeline"];
                        error: null;
                    };
                };
            };
        };
    };
    getRecordingRules: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The rules, in the order they apply, and the recording state. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description since when it is paused; null while recording */
                            paused_at: string | null;
                            rules: {
                                /**
                                 * @description the rule matches every stream
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /**
                                 * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                                 * @enum {boolean}
                                 */
                                host?: true;
                                /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                                kind?: "cam" | "mic" | "screen" | "chat";
                                /** @description `include` records what the rule matches, `exclude` leaves it out */
                                type: "include" | "exclude";
                                /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                                user_id?: string;
                            }[];
                            session_id: string;
                            /** @description what participants are told (`welcome`'s `recording` and `control` `recording`) */
                            state: "recording" | "paused";
                        };
                        error: null;
                    };
                };
            };
        };
    };
    setRecordingRules: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Evaluated in order for each stream, a later matching rule winning over an earlier one; a stream no rule matches is recorded. At most 100 rules; `[]` records everything. */
                    rules: {
                        /**
                         * @description the rule matches every stream
                         * @enum {boolean}
                         */
                        all?: true;
                        /**
                         * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                         * @enum {boolean}
                         */
                        host?: true;
                        /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                        kind?: "cam" | "mic" | "screen" | "chat";
                        /** @description `include` records what the rule matches, `exclude` leaves it out */
                        type: "include" | "exclude";
                        /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                        user_id?: string;
                    }[];
                };
            };
        };
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The rules now in force. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description since when it is paused; null while recording */
                            paused_at: string | null;
                            rules: {
                                /**
                                 * @description the rule matches every stream
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /**
                                 * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                                 * @enum {boolean}
                                 */
                                host?: true;
                                /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                                kind?: "cam" | "mic" | "screen" | "chat";
                                /** @description `include` records what the rule matches, `exclude` leaves it out */
                                type: "include" | "exclude";
                                /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                                user_id?: string;
                            }[];
                            session_id: string;
                            /** @description what participants are told (`welcome`'s `recording` and `control` `recording`) */
                            state: "recording" | "paused";
                        };
                        error: null;
                    };
                };
            };
        };
    };
    pauseRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The recording is paused. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description since when it is paused; null while recording */
                            paused_at: string | null;
                            rules: {
                                /**
                                 * @description the rule matches every stream
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /**
                                 * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                                 * @enum {boolean}
                                 */
                                host?: true;
                                /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                                kind?: "cam" | "mic" | "screen" | "chat";
                                /** @description `include` records what the rule matches, `exclude` leaves it out */
                                type: "include" | "exclude";
                                /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                                user_id?: string;
                            }[];
                            session_id: string;
                            /** @description what participants are told (`welcome`'s `recording` and `control` `recording`) */
                            state: "recording" | "paused";
                        };
                        error: null;
                    };
                };
            };
        };
    };
    resumeRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The recording goes on. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: {
                            /** @description since when it is paused; null while recording */
                            paused_at: string | null;
                            rules: {
                                /**
                                 * @description the rule matches every stream
                                 * @enum {boolean}
                                 */
                                all?: true;
                                /**
                                 * @description only the session's hosts: the dashboard member who created it (who joins with their account id as `user_id`). A session created with an API key or a restricted key has no host, and the rule then matches nobody: name its participants by `user_id`. Not with `all` or `user_id`.
                                 * @enum {boolean}
                                 */
                                host?: true;
                                /** @description only this kind of stream: `cam`, `mic`, `screen` or `chat` */
                                kind?: "cam" | "mic" | "screen" | "chat";
                                /** @description `include` records what the rule matches, `exclude` leaves it out */
                                type: "include" | "exclude";
                                /** @description only this participant (who need not have joined yet: rules may name someone before they join) */
                                user_id?: string;
                            }[];
                            session_id: string;
                            /** @description what participants are told (`welcome`'s `recording` and `control` `recording`) */
                            state: "recording" | "paused";
                        };
                        error: null;
                    };
                };
            };
        };
    };
    listReplayLinks: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of replay links, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ListedReplayLink"][];
                        error: null;
                    };
                };
            };
        };
    };
    createReplayLink: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: components["requestBodies"]["CreateReplayLinkRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The link and its token (stored hashed: shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["ReplayLink"];
                        error: null;
                    };
                };
            };
        };
    };
    revokeReplayLinks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The links were revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["RevokedReplayLinks"];
                        error: null;
                    };
                };
            };
        };
    };
    revokeReplayLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                linkId: string;
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The link was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    getStoryboardSprite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The JPEG sprite. */
            200: {
                headers: {
                    /** @description names this making of the storyboard */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "image/jpeg": string;
                };
            };
        };
    };
    getStoryboardVtt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The WebVTT. */
            200: {
                headers: {
                    /** @description names this making of the storyboard */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/vtt": string;
                };
            };
        };
    };
    getTimeline: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Every timeline event, in order. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["TimelineEvent"][];
                        error: null;
                    };
                };
            };
        };
    };
    setSessionVisibility: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                sessionId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["SetVisibilityRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new visibility: true when the session is now public. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: boolean;
                        error: null;
                    };
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description only records at or after this time (ISO 8601, with a time zone) */
                from?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
                /** @description only the records of this session */
                session_id?: string;
                /** @description only records before this time (ISO 8601, with a time zone); must be after `from` */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of usage records, with the totals. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Usage"];
                        error: null;
                    };
                };
            };
        };
    };
    getDailyUsage: {
        parameters: {
            query?: {
                /** @description first day: the UTC day holding this time (default: 30 days before `to`) */
                from?: string;
                /** @description only this project of the organisation */
                project_id?: string;
                /** @description last day: the UTC day holding this time (default: now); at most 366 days after `from` */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description One entry per day, oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["UsageDay"][];
                        error: null;
                    };
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description also list paused webhooks */
                include_inactive?: boolean;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of webhooks, oldest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"][];
                        error: null;
                    };
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description see Idempotency */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: components["requestBodies"]["CreateWebhookRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The new webhook, with its signing secret (shown this once). */
            201: {
                headers: {
                    /** @description `true` when this answer replays the first one of a retry with the same `Idempotency-Key` */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookWithSecret"];
                        error: null;
                    };
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The webhook. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                        error: null;
                    };
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The webhook was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Deleted"];
                        error: null;
                    };
                };
            };
        };
    };
    updateWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody: components["requestBodies"]["UpdateWebhookRequest"];
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The webhook as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["Webhook"];
                        error: null;
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description opaque; copy it from the `Link: rel="next"` header of the previous page */
                cursor?: string;
                /** @description page size, 1 to 200 */
                limit?: number;
            };
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description A page of delivery attempts, newest first. */
            200: {
                headers: {
                    /** @description present when there is a next page: `<{base_url}{path}?limit=…&cursor=…>; rel="next"`, the same query with the next cursor */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"][];
                        error: null;
                    };
                };
            };
        };
    };
    redeliverWebhookDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a row of the delivery log (its `id`) */
                deliveryId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Queued: the new attempt, logged as pending, is being sent. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookDelivery"];
                        error: null;
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description The webhook with its new secret (shown this once). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookWithSecret"];
                        error: null;
                    };
                };
            };
        };
    };
    sendWebhookTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Queued: the test event will be delivered like any other. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        data: components["schemas"]["WebhookTestQueued"];
                        error: null;
                    };
                };
            };
        };
    };
    connectLive: {
        parameters: {
            query: {
                /** @description from `createConnectionToken`; valid 300 s */
                access_token: string;
                /** @description `binary`: media arrives as binary frames instead of base64 in JSON */
                format?: "json" | "binary";
                /** @description the session id the token was issued for */
                session: string;
                /** @description the token's `user_id`, under the same rule */
                user_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            "4XX": components["responses"]["ClientError"];
            "5XX": components["responses"]["ServerError"];
            /** @description Switching Protocols: the WebSocket is open. The server sends `LiveServerMessage`s (first a `welcome`), the client `LiveClientMessage`s. */
            101: {
                headers: {
                    Upgrade?: "websocket";
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description `format` is neither `json` nor `binary`, `user_id` is not a valid participant id, or a query value holds a control character. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Before the upgrade: a missing, expired, forged or foreign token, or another `user_id`. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Before the upgrade: a live token issued before its participant was removed from the session (`removeParticipant`), or a guest's live token whose join link was revoked or has expired since it was issued. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description A valid request that does not ask for a WebSocket upgrade. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Before the upgrade: a live token for a session that has ended, or a restricted key's live token for a `user_id` connected now with a stronger credential (an API key, a dashboard member, a join link's guest), which a restricted key never replaces. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
            /** @description Before the upgrade: `USAGE_LIMITS_EXCEEDED`, a live token for a session that has not started while the organisation is over its free tier without a subscription (a session under way may still be joined). */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelope"];
                };
            };
        };
    };
    deliverExportCompleted: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportCompletedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverExportFailed: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ExportFailedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverParticipantJoined: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ParticipantJoinedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverParticipantLeft: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ParticipantLeftEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverRecordingFailed: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordingFailedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverRecordingReady: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordingReadyEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverSessionCreated: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionCreatedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverSessionEnded: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionEndedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    deliverSessionStarted: {
        parameters: {
            query?: never;
            header: {
                "User-Agent": "vss-webhooks/1";
                /** @description Standard Webhooks: the event id */
                "webhook-id": string;
                /** @description Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the bytes of the base64 part of the secret (after `whsec_`) */
                "webhook-signature": string;
                /** @description Standard Webhooks: Unix seconds of this attempt */
                "webhook-timestamp": string;
                /** @description the event id (the body's `id`) */
                "X-Service-Event-Id": string;
                /** @description lowercase hex HMAC-SHA256 of the raw body, keyed with the webhook's whole `whsec_…` secret: compute it over the bytes as received and compare in constant time; refuse a mismatch with 401 */
                "X-Service-Signature": string;
                /** @description Unix seconds of this attempt: reject old ones to refuse replays */
                "X-Service-Timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionStartedEvent"];
            };
        };
        responses: {
            /** @description Received: any 2xx within `WEBHOOK_TIMEOUT_MS` (5 s) completes the delivery. The body is ignored (at most 64 KiB of it is read). */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Refused (a receiver answers 401 to a signature that does not match): the attempt failed and is retried like any other failure. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (redirects are not followed), no answer in time, or an address that is refused when the URL is resolved at this attempt: the attempt failed. It is retried after each delay of `WEBHOOK_RETRY_DELAYS_S` (2, 4, 8 … minutes by default) with the same event id and the same bytes; every attempt appears in the delivery log. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** Operations that honour `Idempotency-Key`: the client sends one on these and may retry them. */
export const idempotentOperations: ReadonlySet<string> = new Set([
  "GET /v1/sessions/{sessionId}/export",
  "POST /v1/projects",
  "POST /v1/projects/{projectId}/api-keys",
  "POST /v1/projects/{projectId}/invitations",
  "POST /v1/projects/{projectId}/sessions",
  "POST /v1/restricted-keys",
  "POST /v1/sessions",
  "POST /v1/sessions/{sessionId}/exports",
  "POST /v1/sessions/{sessionId}/join-links",
  "POST /v1/sessions/{sessionId}/replay-links",
  "POST /v1/webhooks",
]);
