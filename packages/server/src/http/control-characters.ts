import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { BadRequest } from './errors.js';

const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const DEL = 0x7f;

/**
 * Whether `s` holds a C0 control character (U+0000 to U+001F) or DEL (U+007F); as `freeText`, tab,
 * line feed and carriage return are allowed.
 */
export function hasControlCharacter(s: string, freeText = false): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === DEL) return true;
    if (c < 0x20 && !(freeText && (c === TAB || c === LINE_FEED || c === CARRIAGE_RETURN))) return true;
  }
  return false;
}

/** `s` with each control character replaced by U+FFFD, for text that must be kept but not as sent. */
export function replaceControlCharacters(s: string): string {
  if (!hasControlCharacter(s)) return s;
  let out = '';
  for (const ch of s) out += hasControlCharacter(ch) ? '\uFFFD' : ch;
  return out;
}

/** The rule as the API documents it. */
export const CONTROL_CHARACTER_RULE =
  "**Control characters.** No string of a request may hold a control character (U+0000 to U+001F, or U+007F): ids, names, labels, emails, path and query values alike. The first such field is refused with 400 `BAD_REQUEST` naming it (`body.name must not contain control characters`), and nothing is stored. Free text (a webhook's `description`) may hold tab, line feed and carriage return, and nothing else of the range. An MCP tool's arguments follow the same rule; there the refusal is a tool error with code `BAD_REQUEST`.";

declare module 'fastify' {
  interface FastifyContextConfig {
    /** fields of free text (`body.description`), which may hold tab, line feed and carriage return */
    freeText?: string[];
    /** the route checks its strings itself (MCP answers in JSON-RPC, not the envelope) */
    ownTextRule?: boolean;
  }
}

/** The text of a field name for a message: a key holding odd characters is shown JSON-escaped. */
const segment = (key: string) =>
  /^[A-Za-z0-9_-]+$/.test(key) ? `.${key}` : `[${JSON.stringify(key).replace(/[\u007f]/g, '\\u007f')}]`;

/**
 * The first field of `value` (walked depth first, keys included) holding a control character,
 * named from `at` (`body.name`, `body.events[2].type`); undefined when there is none. The walk
 * keeps its own stack: a body may nest deeper than the call stack goes.
 */
export function findControlCharacter(
  value: unknown,
  at: string,
  freeText: ReadonlySet<string> = new Set(),
): string | undefined {
  const stack: Array<[unknown, string]> = [[value, at]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [v, path] = next;
    if (typeof v === 'string') {
      if (hasControlCharacter(v, freeText.has(path))) return path;
      continue;
    }
    if (v === null || typeof v !== 'object' || Buffer.isBuffer(v)) continue;
    // Pushed last to first, so that the first field is looked at first.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
      continue;
    }
    const entries = Object.entries(v);
    for (const [key] of entries) if (hasControlCharacter(key)) return `${path}${segment(key)}`;
    for (let i = entries.length - 1; i >= 0; i--)
      stack.push([entries[i]![1], `${path}${segment(entries[i]![0])}`]);
  }
  return undefined;
}

/** The refusal of a field holding a control character. */
export function controlCharacterError(field: string): BadRequest {
  return new BadRequest(`${field} must not contain control characters`);
}

/**
 * Refuses every request whose path, query or body holds a control character, before validation
 * and before any handler: no store sees such a string (PostgreSQL refuses NUL in text, and SQLite
 * would keep it), whatever the route's schema says. Each route gets its own hook with its free-text
 * fields captured at registration, ahead of the route's own `preValidation`.
 */
export function installControlCharacterRule(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const freeText: ReadonlySet<string> = new Set(route.config?.freeText ?? []);
    const checksBody = route.config?.ownTextRule !== true;
    const existing = route.preValidation
      ? Array.isArray(route.preValidation)
        ? route.preValidation
        : [route.preValidation]
      : [];
    route.preValidation = [
      (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const field =
          findControlCharacter(request.params, 'path', freeText) ??
          findControlCharacter(request.query, 'query', freeText) ??
          (checksBody ? findControlCharacter(request.body, 'body', freeText) : undefined);
        done(field ? controlCharacterError(field) : undefined);
      },
      ...existing,
    ];
  });
}
