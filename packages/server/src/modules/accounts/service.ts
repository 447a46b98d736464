import type { Config } from '../../config.js';
import type { Counters } from '../../counters/counter.js';
import { isUniqueViolation } from '../../db/open.js';
import { transaction } from '../../db/transaction.js';
import type { Db, UsersTable } from '../../db/types.js';
import { Conflict, RateLimited, Unauthorized } from '../../http/errors.js';
import type { Principal, Role } from '../../http/principal.js';
import { newId } from '../../lib/ids.js';
import { hmacHex, randomToken } from '../../lib/secrets.js';
import { iso, now, DAY_MS, MINUTE_MS } from '../../lib/time.js';
import type { ProjectsService } from '../projects/service.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { AccountsStore } from './store.js';

/** Dashboard sessions last 7 days. */
export const LOGIN_SESSION_MS = 7 * DAY_MS;
const THROTTLE_WINDOW_MS = 15 * MINUTE_MS;
/** failures for one email from one address, and for one email from anywhere, per 15 minutes */
const MAX_FAILURES_PER_ADDRESS = 10;
const MAX_FAILURES_PER_EMAIL = 100;

/** The public shape of a user. */
export function presentUser(u: UsersTable) {
  return { id: u.id, email: u.email, org_id: u.org_id, role: u.role as Role, created_at: iso(u.created_at) };
}

/** Registration, login with throttling, login sessions, and the current user. */
export function accountsService(deps: {
  config: Config;
  db: Db;
  store: AccountsStore;
  counters: Counters;
  projects: ProjectsService;
}) {
  const { config, db, store, counters } = deps;
  const sessionHash = (cookie: string) => hmacHex(config.keys.cookie, cookie);

  async function openLoginSession(userId: string): Promise<string> {
    const cookie = randomToken(32);
    const t = now();
    await store.insertLoginSession({
      id: sessionHash(cookie),
      user_id: userId,
      created_at: t,
      expires_at: t + LOGIN_SESSION_MS,
    });
    return cookie;
  }

  return {
    /** Creates a user, their organisation and its Default project, and signs them in. */
    /** A user by id, or undefined. */
    userById(id: string) {
      return store.userById(db, id);
    },

    async register(email: string, password: string) {
      const normalized = email.trim().toLowerCase();
      const passwordHash = await hashPassword(password);
      const t = now();
      const user: UsersTable = {
        id: newId(),
        email: normalized,
        password_hash: passwordHash,
        org_id: newId(),
        role: 'owner',
        created_at: t,
      };
      let projectId: string;
      try {
        projectId = await transaction(db, async (trx) => {
          await store.insertOrg(trx, { id: user.org_id, name: normalized, created_at: t });
          await store.insertUser(trx, user);
          const project = await deps.projects.insert(trx, user.org_id, {
            name: 'Default',
            environment: null,
          });
          return project.id;
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new Conflict('an account with this email already exists');
        throw err;
      }
      const cookie = await openLoginSession(user.id);
      return { user: { ...presentUser(user), project_id: projectId }, cookie };
    },

    /** Checks email and password; throttles repeated failures per email (and per email and address). */
    async login(email: string, password: string, address: string, previousCookie: string | undefined) {
      const normalized = email.trim().toLowerCase();
      const perAddress = `login:${normalized}:${address}`;
      const perEmail = `login:${normalized}`;
      const [a, e] = await Promise.all([
        counters.peek(perAddress, THROTTLE_WINDOW_MS),
        counters.peek(perEmail, THROTTLE_WINDOW_MS),
      ]);
      if (a.count >= MAX_FAILURES_PER_ADDRESS || e.count >= MAX_FAILURES_PER_EMAIL)
        throw new RateLimited(
          'too many failed sign-ins for this email; try again later',
          Math.max(a.resetInMs, e.resetInMs) / 1000,
        );

      const user = await store.userByEmail(db, normalized);
      if (!(await verifyPassword(user?.password_hash, password)) || !user) {
        await Promise.all([
          counters.hit(perAddress, THROTTLE_WINDOW_MS),
          counters.hit(perEmail, THROTTLE_WINDOW_MS),
        ]);
        throw new Unauthorized('email or password is wrong');
      }
      await counters.clear(perAddress, THROTTLE_WINDOW_MS);
      // Rotation: the session the browser held before signing in is revoked, a fresh id is issued.
      if (previousCookie) await store.deleteLoginSession(sessionHash(previousCookie));
      const cookie = await openLoginSession(user.id);
      return { user: presentUser(user), cookie };
    },

    /** Revokes the login session behind this cookie. */
    async logout(cookie: string): Promise<void> {
      await store.deleteLoginSession(sessionHash(cookie));
    },

    /** The principal of a `service_session` cookie, or null. */
    async resolveCookie(cookie: string): Promise<Principal | null> {
      if (cookie.length > 200) return null;
      const user = await store.userBySession(sessionHash(cookie), now());
      if (!user) return null;
      return {
        kind: 'user',
        credentialId: user.id,
        orgId: user.org_id,
        userId: user.id,
        keyProjectId: null,
        role: user.role as Role,
        projectHint: null,
      };
    },

    async me(userId: string) {
      const user = await store.userById(db, userId);
      if (!user) throw new Unauthorized('the signed-in user no longer exists');
      return presentUser(user);
    },

    sweep: () => store.deleteExpiredSessions(now()),
  };
}
export type AccountsService = ReturnType<typeof accountsService>;
