import type { Schemas } from '@vss/client';
import { Option, type Command } from 'commander';
import { client } from '../context.js';
import { UsageError } from '../errors.js';
import { paged, collect } from '../options.js';
import { printList, printObject, type Column } from '../output.js';

type Project = Schemas['Project'];
const COLUMNS: Column<Project>[] = [
  { key: 'id' },
  { key: 'name' },
  { key: 'environment' },
  { key: 'created_at', label: 'CREATED' },
];
const ENVIRONMENTS = ['development', 'staging', 'production', 'none'] as const;

const environment = () =>
  new Option('--environment <env>', 'development, staging, production, or none').choices(ENVIRONMENTS);

export function register(program: Command): void {
  const projects = program.command('projects').description('projects of your organisation');

  paged(projects.command('list').description('list projects')).action(async (_o, cmd: Command) => {
    const vss = client(cmd);
    printList(cmd, await collect(cmd, (query) => vss.page('/v1/projects', { params: { query } })), COLUMNS);
  });

  projects
    .command('get <projectId>')
    .description('one project')
    .action(async (projectId: string, _o, cmd: Command) => {
      printObject(
        cmd,
        await client(cmd).get('/v1/projects/{projectId}', { params: { path: { projectId } } }),
      );
    });

  projects
    .command('create <name>')
    .description('create a project')
    .addOption(environment())
    .action(async (name: string, o: { environment?: (typeof ENVIRONMENTS)[number] }, cmd: Command) => {
      const env = o.environment === 'none' ? null : o.environment;
      printObject(
        cmd,
        await client(cmd).post('/v1/projects', {
          body: { name, ...(env !== undefined ? { environment: env } : {}) },
        }),
      );
    });

  projects
    .command('update <projectId>')
    .description('rename a project, set its environment, or the sites that may frame its room')
    .option('--name <name>', 'new name')
    .addOption(environment())
    .option(
      '--embed-origin <origin>',
      "a site that may frame the project's room at /embed/<projectId> (https://host[:port]); repeat for more; replaces the list",
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--no-embed-origins', "let no site frame the project's room")
    .action(
      async (
        projectId: string,
        o: {
          name?: string;
          environment?: (typeof ENVIRONMENTS)[number];
          embedOrigin?: string[];
          embedOrigins?: boolean;
        },
        cmd: Command,
      ) => {
        const origins = o.embedOrigins === false ? [] : o.embedOrigin;
        if (o.name === undefined && o.environment === undefined && origins === undefined)
          throw new UsageError(
            'projects update: give --name, --environment, --embed-origin or --no-embed-origins',
          );
        const body = {
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.environment !== undefined
            ? { environment: o.environment === 'none' ? null : o.environment }
            : {}),
          ...(origins !== undefined ? { embed_origins: origins } : {}),
        };
        printObject(
          cmd,
          await client(cmd).patch('/v1/projects/{projectId}', { params: { path: { projectId } }, body }),
        );
      },
    );
}
