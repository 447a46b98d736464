import type { DataOf } from '@vss/client';
import { RULE_KINDS, type RuleKind } from '@vss/protocol';
import { InvalidArgumentError, type Command } from 'commander';
import { client, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { cell, out, printDone, printJson, printList, type Column } from '../output.js';

type Recording = DataOf<'/v1/sessions/{sessionId}/recording-rules', 'get'>;
type Rule = Recording['rules'][number];

/**
 * `--include`/`--exclude`'s value as the streams it names: `USER` (all of theirs), `USER:KIND`,
 * `:KIND` or `*:KIND` (everyone's streams of that kind), `*` (every stream), `host` or `host:KIND`
 * (the session's hosts'). The kind is after the last ":", so a user id holding ":" ends with one
 * (`org:ana:`: all of org:ana's streams; `host:`: the participant whose id is "host").
 */
function streams(value: string): Omit<Rule, 'type'> {
  const colon = value.lastIndexOf(':');
  const user = colon < 0 ? value : value.slice(0, colon);
  const kind = colon < 0 ? '' : value.slice(colon + 1);
  if (kind !== '' && !(RULE_KINDS as readonly string[]).includes(kind))
    throw new InvalidArgumentError(
      `expected USER, USER:KIND or :KIND, KIND one of ${RULE_KINDS.join(', ')}; got "${value}"`,
    );
  const anyone = user === '' || user === '*';
  if (anyone && kind === '') {
    if (user === '*') return { all: true };
    throw new InvalidArgumentError(
      `expected USER, USER:KIND or :KIND (--exclude-all for everything); got "${value}"`,
    );
  }
  // `host` without a trailing ":" is the keyword; `host:` is the user id.
  if (user === 'host' && value !== 'host:')
    return { host: true, ...(kind ? { kind: kind as RuleKind } : {}) };
  return {
    ...(anyone ? {} : { user_id: user }),
    ...(kind ? { kind: kind as RuleKind } : {}),
  };
}

/** `--set`'s value: a JSON array of rules (or the API's `{ "rules": [...] }`), checked by the server. */
function jsonRules(value: string): Rule[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = undefined;
  }
  const rules = Array.isArray(parsed) ? parsed : (parsed as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules))
    throw new InvalidArgumentError(
      `expected a JSON array of rules, such as '[{"type":"exclude","kind":"chat"}]'`,
    );
  return rules as Rule[];
}

interface Row {
  n: number;
  type: string;
  user: string;
  kind: string;
}

const COLUMNS: Column<Row>[] = [{ key: 'n', label: '#' }, { key: 'type' }, { key: 'user' }, { key: 'kind' }];

/** The recording's state, then its rules in the order they apply (`*`: any; `<host>`: the hosts). */
function show(cmd: Command, r: Recording): void {
  if (globals(cmd).json) return printJson(r);
  out(r.state === 'paused' ? `paused since ${cell(r.paused_at)}\n` : 'recording\n');
  const rows = r.rules.map((rule, i) => ({
    n: i + 1,
    type: rule.type,
    user: rule.host ? '<host>' : (rule.user_id ?? '*'),
    kind: rule.kind ?? '*',
  }));
  printList(cmd, rows, COLUMNS, 'no rules: everything is recorded');
}

const RULES_HELP = `
Rules apply in order, a later one winning; a stream no rule matches is recorded. The flags replace
the session's rules with the ones given, in the order given; what is not recorded is still seen live.
  vss recording rules SESSION --exclude-all --include host   # the host alone
  vss recording rules SESSION --exclude :screen               # nobody's screen
  vss recording rules SESSION --exclude guest-1:mic           # all but guest-1's microphone
  vss recording rules SESSION --clear                         # everything again
  vss recording rules SESSION --set '[{"type":"exclude","kind":"chat"}]'
USER is a participant's id (who need not have joined yet), or host: the session's host, the dashboard
member who created it (a session created with an API key has none). KIND is ${RULE_KINDS.join(', ')}.
A user id with ":" in it ends with ":" (org:ana:), and so does a participant whose id is "host" (host:).`;

interface RulesOptions {
  set?: Rule[];
  clear?: boolean;
}

export function register(program: Command): void {
  const recording = program
    .command('recording')
    .description('what a live session records: its recording rules, pausing and resuming');

  // The rules the flags give, in the order given on the command line.
  const given: Rule[] = [];
  const rule = (type: Rule['type']) => (value: string) => {
    given.push({ type, ...streams(value) });
    return given;
  };
  recording
    .command('rules <sessionId>')
    .description("print a session's recording rules and whether it is paused; with flags, replace them")
    .option('--exclude <user[:kind]>', 'do not record these streams (repeatable)', rule('exclude'))
    .option(
      '--include <user[:kind]>',
      'record these streams, over an earlier --exclude (repeatable)',
      rule('include'),
    )
    .option('--exclude-all', 'record nothing (but what a later --include names)')
    .option('--clear', 'no rules: record everything')
    .option('--set <json>', 'the whole list as the API takes it, a JSON array of rules', jsonRules)
    .on('option:exclude-all', () => given.push({ type: 'exclude', all: true }))
    .addHelpText('after', RULES_HELP)
    .action(async (sessionId: string, o: RulesOptions, cmd: Command) => {
      const ways = [given.length > 0, o.clear, o.set !== undefined].filter(Boolean).length;
      if (ways > 1)
        throw new UsageError('give the rules one way: --include/--exclude/--exclude-all, --clear, or --set');
      const vss = client(cmd);
      const path = { params: { path: { sessionId } } };
      if (ways === 0) return show(cmd, await vss.get('/v1/sessions/{sessionId}/recording-rules', path));
      const rules = o.clear ? [] : (o.set ?? given);
      show(cmd, await vss.put('/v1/sessions/{sessionId}/recording-rules', { ...path, body: { rules } }));
    });

  for (const [verb, done, help] of [
    [
      'pause',
      'paused',
      'pause the recording: nothing is stored until it is resumed (the call goes on live; replay and exports skip the gap)',
    ],
    ['resume', 'resumed', 'resume a paused recording, in the same recording'],
  ] as const)
    recording
      .command(`${verb} <sessionId>`)
      .description(help)
      .action(async (sessionId: string, _o, cmd: Command) => {
        const r = await client(cmd).post(`/v1/sessions/{sessionId}/recording/${verb}`, {
          params: { path: { sessionId } },
        });
        printDone(cmd, `${done} the recording of ${r.session_id}`, r);
      });
}
