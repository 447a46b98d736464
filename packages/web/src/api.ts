/**
 * The dashboard's one way to the REST API: `vss`, the typed client of `@vss/client`, on the page's
 * own origin with the login cookie, the chosen project as `X-Project-Id`, an Idempotency-Key on
 * creates, and errors thrown as `VssError` with the service's code, message and status.
 */
import { VssClient, VssError, type Schemas } from '@vss/client';

export { VssError, type Schemas };

/** The project the dashboard acts on, sent as `X-Project-Id` to routes without a project in the path. */
let currentProject: string | null = null;

/** Sets the project every later request acts on. */
export function setCurrentProject(id: string | null): void {
  currentProject = id;
}

/**
 * The API. Not retried: a person sees the failure at once and tries again (a retried create would
 * be answered once all the same, by its Idempotency-Key).
 */
export const vss = new VssClient({
  baseUrl: '',
  credentials: 'same-origin',
  projectId: () => currentProject,
  retry: false,
});

/** Whether `err` is the API's answer with this HTTP status (0: no answer at all). */
export function isStatus(err: unknown, status: number): err is VssError {
  return err instanceof VssError && err.status === status;
}

/** Field names as a person reads them, where the field's own name would not do. */
const FIELD_WORDS: Record<string, string> = {
  url: 'The address',
  email: 'The email address',
  password: 'The password',
  name: 'The name',
  events: 'Events',
  expires_in_minutes: 'The expiry in minutes',
  expires_in_days: 'The expiry in days',
  user_id: 'The name',
  display_name: 'The name',
  max_uses: 'The number of uses',
  description: 'The description',
  role: 'The role',
  return_url: 'The return address',
};

/** Ways the API words a refused value, and how a person would say it. */
const RULE_WORDS: Array<[RegExp, (m: RegExpMatchArray) => string]> = [
  [/^must NOT have fewer than 1 items?$/, () => 'needs at least one choice'],
  [/^must NOT have fewer than (\d+) items$/, (m) => `needs at least ${m[1]} choices`],
  [/^must NOT have more than (\d+) items$/, (m) => `allows at most ${m[1]} choices`],
  [/^must be >= (\S+)$/, (m) => `must be at least ${m[1]}`],
  [/^must be <= (\S+)$/, (m) => `must be at most ${m[1]}`],
  [/^must be > (\S+)$/, (m) => `must be more than ${m[1]}`],
  [/^must be < (\S+)$/, (m) => `must be less than ${m[1]}`],
  [/^must be an integer$/, () => 'must be a whole number'],
  [/^must be a valid email$/, () => 'is not complete (like name@example.com)'],
  [/^must be a valid (uri|url)$/, () => 'must be a full web address starting with https://'],
  [/^has an invalid format$/, () => 'is not in the expected form'],
  [/^must be one of (.+)$/, (m) => `must be one of ${m[1]!.replace(/"/g, '')}`],
  [/^is not a known field$/, () => 'is not something this form sends'],
];

/**
 * The API names the refused field as it is sent (`body.events must NOT have fewer than 1 items`):
 * exact, but not words for a person. A message of that shape is said in plain words (`Events needs
 * at least one choice`); any other message is the API's own sentence, shown as it is.
 */
export function plainWords(message: string): string {
  const m = /^(?:body|query|params|headers)((?:\.[A-Za-z_][\w-]*|\[\d+\])*) (.+)$/.exec(message);
  if (!m) return message;
  const path = m[1]!.split('.').filter(Boolean);
  const last = (path[path.length - 1] ?? '').replace(/\[\d+\]$/, '');
  const rule = m[2]!;
  const field = last;
  const said = RULE_WORDS.find(([re]) => re.test(rule));
  const words = said ? said[1](rule.match(said[0])!) : rule;
  const name =
    FIELD_WORDS[field] ??
    (field ? field.charAt(0).toUpperCase() + field.slice(1).replace(/_/g, ' ') : 'This');
  return `${name} ${words}.`.replace(/\.\.$/, '.');
}

/** The message to show a person for any error. */
export function errorMessage(err: unknown): string {
  if (err instanceof VssError) {
    if (err.status === 0 && err.code !== 'ABORTED')
      return 'the server could not be reached; check your connection and try again';
    // An answer without the API's envelope (a proxy's error page): only its status says anything.
    if (/^HTTP_\d+$/.test(err.code)) return `the server answered ${err.status}`;
    return plainWords(err.message);
  }
  if (err instanceof Error) return err.message;
  return String(err);
}
