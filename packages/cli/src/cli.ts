import { type ParseArgsConfig, parseArgs } from 'node:util';
import { DshError, messageOf } from '@deepseek-ai/dsh-core';
import { runApprove } from './commands/approve.js';
import { runCatalog } from './commands/catalog.js';
import { runConfigCheck } from './commands/config-check.js';
import { runDemo } from './commands/demo.js';
import { runHooksCheck } from './commands/hooks-check.js';
import { runInbox } from './commands/inbox.js';
import { runLog } from './commands/log.js';
import { runMcpList } from './commands/mcp-list.js';
import { runReplay } from './commands/replay.js';
import { runRun } from './commands/run.js';
import { CliError, CliErrorCode } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { commandHelp, mainHelp } from './help.js';
import type { CliIo } from './io.js';
import { styleFor } from './render/style.js';
import { parseErrorMessage } from './usage-message.js';
import { version } from './version.js';

/** The version `dsh --version` prints. */
export const cliVersion: string = version;

type Options = NonNullable<ParseArgsConfig['options']>;

const common: Options = {
  help: { type: 'boolean', short: 'h' },
  config: { type: 'string', short: 'c' },
  'no-color': { type: 'boolean' },
};

const commandOptions: Readonly<Record<string, Options>> = {
  // No --config: the demo brings its own configuration.
  demo: { help: { type: 'boolean', short: 'h' }, 'no-color': { type: 'boolean' }, 'no-sandbox': { type: 'boolean' } },
  replay: {
    ...common,
    workspace: { type: 'string', short: 'w' },
    execute: { type: 'boolean' },
    approval: { type: 'string' },
    expect: { type: 'string' },
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
  },
  'hooks check': {
    ...common,
    workspace: { type: 'string', short: 'w' },
    settings: { type: 'string' },
    tool: { type: 'string' },
    input: { type: 'string' },
    expect: { type: 'string' },
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
  },
  'config check': { ...common, json: { type: 'boolean' } },
  catalog: { ...common, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  'mcp list': { ...common, json: { type: 'boolean' }, strict: { type: 'boolean' } },
  log: { ...common, call: { type: 'string' }, json: { type: 'boolean' } },
  // No --config: the answer goes to the engine, whatever this directory's configuration says.
  approve: {
    help: { type: 'boolean', short: 'h' },
    'no-color': { type: 'boolean' },
    message: { type: 'string' },
    ingress: { type: 'string' },
    object: { type: 'string' },
    dbos: { type: 'string' },
    'dbos-app': { type: 'string' },
    'dbos-name': { type: 'string' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  },
  run: {
    ...common,
    model: { type: 'string', short: 'm' },
    'base-url': { type: 'string' },
    provider: { type: 'string', short: 'p' },
    'max-turns': { type: 'string' },
    log: { type: 'string' },
    strict: { type: 'boolean' },
    inbox: { type: 'boolean' },
  },
  inbox: {
    help: { type: 'boolean', short: 'h' },
    'no-color': { type: 'boolean' },
    logs: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    durable: { type: 'string' },
    ingress: { type: 'string' },
    object: { type: 'string' },
    dbos: { type: 'string' },
    'dbos-app': { type: 'string' },
    'dbos-name': { type: 'string' },
  },
};

/**
 * Runs `dsh` with `argv` (without the node and script paths) and resolves
 * with the exit code; never rejects. Errors are written to `io.stderr` as
 * `dsh: CODE: message`.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`dsh: ${error.code}: ${error.message}\n`);
      return error.exitCode;
    }
    const code = DshError.isInstance(error) ? `${error.code}: ` : '';
    io.stderr.write(`dsh: internal error: ${code}${messageOf(error)}\n${error instanceof Error && error.stack ? `${error.stack}\n` : ''}`);
    return ExitCode.INTERNAL;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    const topic = first === 'help' ? argv.slice(1).join(' ') : '';
    io.stdout.write(topic === '' ? mainHelp() : (commandHelp(topic) ?? mainHelp()));
    return ExitCode.OK;
  }
  if (first === '--version' || first === '-v') {
    io.stdout.write(`${cliVersion}\n`);
    return ExitCode.OK;
  }
  let command: string = first;
  let rest = argv.slice(1);
  if (first === 'hooks') {
    if (second !== 'check') {
      if (second === undefined || second === '--help' || second === '-h') {
        io.stdout.write(commandHelp('hooks check') ?? '');
        return ExitCode.OK;
      }
      throw new CliError(CliErrorCode.USAGE, `unknown command "hooks ${second}"; did you mean "hooks check"? (dsh --help)`);
    }
    command = 'hooks check';
    rest = argv.slice(2);
  }
  if (first === 'config') {
    if (second !== 'check') {
      if (second === undefined || second === '--help' || second === '-h') {
        io.stdout.write(commandHelp('config check') ?? '');
        return ExitCode.OK;
      }
      throw new CliError(CliErrorCode.USAGE, `unknown command "config ${second}"; did you mean "config check"? (dsh --help)`);
    }
    command = 'config check';
    rest = argv.slice(2);
  }
  if (first === 'mcp') {
    if (second !== 'list') {
      if (second === undefined || second === '--help' || second === '-h') {
        io.stdout.write(commandHelp('mcp list') ?? '');
        return ExitCode.OK;
      }
      throw new CliError(CliErrorCode.USAGE, `unknown command "mcp ${second}"; did you mean "mcp list"? (dsh --help)`);
    }
    command = 'mcp list';
    rest = argv.slice(2);
  }
  const options = commandOptions[command];
  if (options === undefined) throw new CliError(CliErrorCode.USAGE, `unknown command "${first}" (dsh --help lists them)`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(CliErrorCode.USAGE, parseErrorMessage(command, options, error));
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help === true) {
    io.stdout.write(commandHelp(command) ?? mainHelp());
    return ExitCode.OK;
  }
  const cio: CliIo = values['no-color'] === true ? { ...io, style: styleFor(false) } : io;
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const flag = (name: string): boolean => values[name] === true;
  const positionals = parsed.positionals;
  const noPositionals = (): void => {
    if (positionals.length > 0) throw new CliError(CliErrorCode.USAGE, `${command}: unexpected argument "${positionals[0]}"`);
  };

  switch (command) {
    case 'demo':
      noPositionals();
      return runDemo(cio, { sandbox: !flag('no-sandbox') });
    case 'replay': {
      const [file, extra] = positionals;
      if (file === undefined) throw new CliError(CliErrorCode.USAGE, 'replay: which transcript? (dsh replay <file>)');
      if (extra !== undefined) throw new CliError(CliErrorCode.USAGE, `replay: unexpected argument "${extra}"`);
      const approval = str('approval') ?? undefined;
      if (approval !== undefined && approval !== 'allow' && approval !== 'deny') {
        throw new CliError(CliErrorCode.USAGE, `replay: --approval must be "allow" or "deny", not "${approval}"`);
      }
      return runReplay(cio, {
        file,
        execute: flag('execute'),
        json: flag('json'),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
        ...(str('workspace') === undefined ? {} : { workspace: str('workspace') as string }),
        ...(approval === undefined ? {} : { approval }),
        ...(str('expect') === undefined ? {} : { expect: str('expect') as string }),
        strict: flag('strict'),
      });
    }
    case 'hooks check': {
      noPositionals();
      const tool = str('tool');
      if (tool === undefined) {
        // Without a sample call: list the hook files read, the hooks found and the entries skipped.
        for (const flagName of ['input', 'settings', 'expect']) {
          if (str(flagName) !== undefined)
            throw new CliError(CliErrorCode.USAGE, `hooks check: --${flagName} needs --tool NAME (Bash, Edit, bash, …)`);
        }
        return runConfigCheck(cio, {
          json: flag('json'),
          section: 'hooks',
          ...(str('config') === undefined ? {} : { config: str('config') as string }),
          ...(str('workspace') === undefined ? {} : { dir: str('workspace') as string }),
        });
      }
      const expect = str('expect');
      if (expect !== undefined && !['allow', 'deny', 'ask', 'none'].includes(expect)) {
        throw new CliError(CliErrorCode.USAGE, `hooks check: --expect must be allow, deny, ask or none, not "${expect}"`);
      }
      return runHooksCheck(cio, {
        tool,
        input: str('input') ?? '{}',
        json: flag('json'),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
        ...(str('workspace') === undefined ? {} : { workspace: str('workspace') as string }),
        ...(str('settings') === undefined ? {} : { settings: str('settings') as string }),
        ...(expect === undefined ? {} : { expect: expect as 'allow' | 'deny' | 'ask' | 'none' }),
        strict: flag('strict'),
      });
    }
    case 'log': {
      const [file, extra] = positionals;
      if (file === undefined) throw new CliError(CliErrorCode.USAGE, 'log: which session log? (dsh log <file.jsonl>)');
      if (extra !== undefined) throw new CliError(CliErrorCode.USAGE, `log: unexpected argument "${extra}"`);
      return runLog(cio, {
        file,
        json: flag('json'),
        ...(str('call') === undefined ? {} : { call: str('call') as string }),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
      });
    }
    case 'approve': {
      const [session, call, word, extra] = positionals;
      if (session === undefined || call === undefined || word === undefined)
        throw new CliError(CliErrorCode.USAGE, 'approve: which session, call and answer? (dsh approve <session> <call> allow|deny)');
      if (extra !== undefined) throw new CliError(CliErrorCode.USAGE, `approve: unexpected argument "${extra}"`);
      if (word !== 'allow' && word !== 'deny')
        throw new CliError(CliErrorCode.USAGE, `approve: the answer must be allow or deny, not "${word}"`);
      return runApprove(cio, {
        session,
        call,
        word,
        json: flag('json'),
        ...(str('message') === undefined ? {} : { message: str('message') as string }),
        ...(str('ingress') === undefined ? {} : { ingress: str('ingress') as string }),
        ...(str('object') === undefined ? {} : { object: str('object') as string }),
        ...(str('dbos') === undefined ? {} : { dbos: str('dbos') as string }),
        ...(str('dbos-app') === undefined ? {} : { dbosApp: str('dbos-app') as string }),
        ...(str('dbos-name') === undefined ? {} : { dbosName: str('dbos-name') as string }),
        ...(str('timeout') === undefined ? {} : { timeout: str('timeout') as string }),
      });
    }
    case 'run': {
      const task = positionals.join(' ').trim();
      if (task === '') throw new CliError(CliErrorCode.USAGE, 'run: what should the agent do? (dsh run "add a test for parseArgs")');
      const maxTurns = str('max-turns');
      if (maxTurns !== undefined && !/^[1-9]\d{0,3}$/.test(maxTurns)) {
        throw new CliError(CliErrorCode.USAGE, `run: --max-turns must be a whole number from 1 to 9999, not "${maxTurns}"`);
      }
      return runRun(cio, {
        task,
        ...(maxTurns === undefined ? {} : { maxTurns: Number(maxTurns) }),
        ...(str('provider') === undefined ? {} : { provider: str('provider') as string }),
        ...(str('model') === undefined ? {} : { model: str('model') as string }),
        ...(str('base-url') === undefined ? {} : { baseUrl: str('base-url') as string }),
        ...(str('log') === undefined ? {} : { log: str('log') as string }),
        strict: flag('strict'),
        ...(flag('inbox') ? { inbox: true } : {}),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
      });
    }
    case 'inbox':
      noPositionals();
      return runInbox(cio, {
        ...(str('logs') === undefined ? {} : { logs: str('logs') as string }),
        ...(str('port') === undefined ? {} : { port: str('port') as string }),
        ...(str('host') === undefined ? {} : { host: str('host') as string }),
        ...(str('durable') === undefined
          ? {}
          : {
              durable: {
                durable: str('durable') as string,
                ...(str('ingress') === undefined ? {} : { ingress: str('ingress') as string }),
                ...(str('object') === undefined ? {} : { object: str('object') as string }),
                ...(str('dbos') === undefined ? {} : { dbos: str('dbos') as string }),
                ...(str('dbos-app') === undefined ? {} : { dbosApp: str('dbos-app') as string }),
                ...(str('dbos-name') === undefined ? {} : { dbosName: str('dbos-name') as string }),
              },
            }),
      });
    case 'config check': {
      const [dir, extra] = positionals;
      if (extra !== undefined) throw new CliError(CliErrorCode.USAGE, `config check: unexpected argument "${extra}"`);
      return runConfigCheck(cio, {
        json: flag('json'),
        ...(dir === undefined ? {} : { dir }),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
      });
    }
    case 'mcp list':
      noPositionals();
      return runMcpList(cio, {
        json: flag('json'),
        strict: flag('strict'),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
      });
    case 'catalog':
      noPositionals();
      return runCatalog(cio, {
        json: flag('json'),
        strict: flag('strict'),
        ...(str('config') === undefined ? {} : { config: str('config') as string }),
      });
    default:
      throw new CliError(CliErrorCode.USAGE, `unknown command "${command}"`);
  }
}
