import { parseArgs } from 'node:util';
import { OamClient } from './client.ts';
import { fromCwd, UsageError, type Command, type Context, type OptionSpec } from './command.ts';
import { CliError, EXIT } from './errors.ts';
import { exportCommand } from './commands/export.ts';
import { planCommand } from './commands/plan.ts';
import { applyCommand } from './commands/apply.ts';
import { statusCommand } from './commands/status.ts';
import { rollbackCommand } from './commands/rollback.ts';
import { importCommand } from './commands/import.ts';

const COMMANDS: Command[] = [
  exportCommand,
  planCommand,
  applyCommand,
  statusCommand,
  rollbackCommand,
  importCommand,
];

const GLOBAL: Record<string, OptionSpec> = {
  url: {
    type: 'string',
    value: 'URL',
    description: 'the OAM (IPFE_URL; default http://127.0.0.1:8080)',
  },
  token: {
    type: 'string',
    value: 'TOKEN',
    description: 'an API token (IPFE_TOKEN, which keeps it out of the process list)',
  },
  help: { type: 'boolean', description: 'show help' },
};

const DEFAULT_URL = 'http://127.0.0.1:8080';

const optionLine = ([name, spec]: [string, OptionSpec]) =>
  `  --${name}${spec.value ? ` ${spec.value}` : ''}`.padEnd(22) + spec.description;

function usageOf(command: Command): string {
  return `usage: ipfe ${command.name}${command.args ? ` ${command.args}` : ''}`;
}

function helpOf(command: Command): string {
  return [
    usageOf(command),
    '',
    command.summary,
    ...command.details,
    '',
    'options:',
    ...Object.entries({ ...command.options, ...GLOBAL }).map(optionLine),
  ].join('\n');
}

function overview(): string {
  return [
    'usage: ipfe <command> [options]',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${`${c.name} ${c.args}`.padEnd(36)} ${c.summary}`),
    '',
    'options of every command:',
    ...Object.entries(GLOBAL).map(optionLine),
    '',
    'ipfe <command> --help tells more. Exit codes: 0 done, 1 error, 2 plan has changes, 3 stale (plan again; nothing committed), 64 bad usage.',
  ].join('\n');
}

function connectionOf(values: Record<string, unknown>, env: NodeJS.ProcessEnv) {
  const url = (values.url as string | undefined) ?? env.IPFE_URL ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url (or IPFE_URL) must be an http(s) URL, not ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--url (or IPFE_URL) must be an http(s) URL, not ${JSON.stringify(url)}`);
  }
  const token = ((values.token as string | undefined) ?? env.IPFE_TOKEN)?.trim();
  if (token && !/^[\x21-\x7e]+$/.test(token)) {
    throw new UsageError(
      '--token (or IPFE_TOKEN) holds spaces or characters no token has; paste the token alone',
    );
  }
  if (!token) {
    throw new CliError(
      'no API token: set IPFE_TOKEN (or pass --token); create one on the API tokens page of the OAM (menu: API tokens)',
    );
  }
  return { url: parsed.href, token };
}

/** Runs one command line; answers the exit code. */
export async function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
): Promise<number> {
  const err = (line: string) => io.stderr(`${line}\n`);
  // A first, lenient pass finds the command among the options of every command.
  const every = Object.assign({}, GLOBAL, ...COMMANDS.map((c) => c.options));
  const [name, topic] = parseArgs({
    args: argv,
    options: every,
    allowPositionals: true,
    strict: false,
  }).positionals;
  if (name === undefined || name === 'help') {
    const about = COMMANDS.find((c) => c.name === topic);
    const asked = name === 'help' || argv.includes('--help');
    (asked ? io.stdout : io.stderr)(`${about ? helpOf(about) : overview()}\n`);
    return asked ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    err(`ipfe: unknown command ${JSON.stringify(name)}\n${overview()}`);
    return EXIT.usage;
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...GLOBAL, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values;
    positionals = parsed.positionals.slice(1);
  } catch (error) {
    err(`ipfe ${command.name}: ${(error as Error).message}\n${usageOf(command)}`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout(`${helpOf(command)}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== command.positionals.length) {
    const wanted =
      command.positionals.length === 0 ? 'no arguments' : command.positionals.join(' ');
    err(
      `ipfe ${command.name}: expected ${wanted}, got ${positionals.length === 0 ? 'none' : positionals.map((p) => JSON.stringify(p)).join(' ')}\n${usageOf(command)}`,
    );
    return EXIT.usage;
  }
  let client: OamClient | null = null;
  const context: Context = {
    client: () => (client ??= new OamClient(connectionOf(values, env))),
    out: (line) => io.stdout(`${line}\n`),
    err,
    write: io.stdout,
    path: fromCwd(env.INIT_CWD ?? process.cwd()),
  };
  try {
    return await command.run(context, positionals, values);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`ipfe ${command.name}: ${error.message}\n${usageOf(command)}`);
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      err(
        error.message.includes('\n') || /^\S+:\d/.test(error.message)
          ? error.message
          : `ipfe ${command.name}: ${error.message}`,
      );
      return error.exitCode;
    }
    throw error;
  }
}

process.exitCode = await run(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
