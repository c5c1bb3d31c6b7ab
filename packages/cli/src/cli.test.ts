import { describe, expect, it } from 'vitest';
import { put, runDsh, scratchDir } from './fixtures/run-dsh.js';

describe('the dsh command line', () => {
  it('prints help listing every command and the exit codes', async () => {
    const dir = scratchDir();
    const run = await runDsh(['--help'], { cwd: dir, home: dir });
    expect(run.code).toBe(0);
    for (const command of ['demo', 'replay FILE', 'log FILE', 'hooks check', 'catalog']) expect(run.stdout).toContain(command);
    expect(run.stdout).toContain('Exit codes:');
    const sub = await runDsh(['replay', '--help'], { cwd: dir, home: dir });
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('--execute');
  });

  it('exits 2 with CLI_USAGE for an unknown command, an unknown flag or a missing argument', async () => {
    const dir = scratchDir();
    const unknown = await runDsh(['deploy'], { cwd: dir, home: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('dsh: CLI_USAGE: unknown command "deploy"');
    const flag = await runDsh(['demo', '--colour'], { cwd: dir, home: dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option --colour');
    const missing = await runDsh(['replay'], { cwd: dir, home: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('which transcript?');
    const tool = await runDsh(['hooks', 'check', '--expect', 'deny'], { cwd: dir, home: dir });
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain('--expect needs --tool NAME');
    const config = await runDsh(['config', 'list'], { cwd: dir, home: dir });
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('did you mean "config check"?');
  });

  it('lists every command in dsh --help, the whole demo in demo --help, and the exit codes only once', async () => {
    const dir = scratchDir();
    const main = await runDsh(['--help'], { cwd: dir, home: dir });
    for (const command of [
      'run "TASK"',
      'demo',
      'replay FILE',
      'log FILE',
      'approve S C',
      'hooks check',
      'config check',
      'mcp list',
      'catalog',
    ])
      expect(main.stdout).toContain(`\n  ${command}`);
    expect(main.stdout).toContain('Exit codes:\n  0   success');
    const demo = await runDsh(['demo', '--help'], { cwd: dir, home: dir });
    for (let n = 1; n <= 15; n++) expect(demo.stdout).toMatch(new RegExp(`\\n +${n}\\. `));
    expect(demo.stdout).toContain('web_fetch');
    const catalog = await runDsh(['catalog', '--help'], { cwd: dir, home: dir });
    expect(catalog.stdout).toContain('Options:\n  -c, --config FILE');
    for (const help of [demo, catalog]) {
      expect(help.stdout).not.toContain('  0   success');
      expect(help.stdout).toContain('Exit codes: dsh --help lists them.');
    }
  });

  it('says an unknown option is unknown and lists the valid ones, without advice about positionals', async () => {
    const dir = scratchDir();
    const run = await runDsh(['demo', '--bogus'], { cwd: dir, home: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'dsh: CLI_USAGE: demo: unknown option --bogus; demo takes -h/--help, --no-color, --no-sandbox (dsh demo --help)\n',
    );
    const short = await runDsh(['log', '-x', 'a.jsonl'], { cwd: dir, home: dir });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('log: unknown option -x; log takes');
    expect(short.stderr).toContain('--call VALUE');
  });

  it('exits 3 naming the key when dsh.config.json has a bad plugin option', async () => {
    const dir = scratchDir();
    put(dir, 'dsh.config.json', JSON.stringify({ plugins: { toolBash: { sandbox: { fallback: 'maybe' } } } }));
    const run = await runDsh(['catalog'], { cwd: dir, home: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/CONFIG_INVALID: .*dsh\.config\.json: plugins\.toolBash\.sandbox\.fallback: /);
  });

  it('exits 3 naming the key for an unknown or mistyped configuration key, and for invalid JSON', async () => {
    const dir = scratchDir();
    put(dir, 'dsh.config.json', JSON.stringify({ plugins: { toolFS: {} } }));
    const unknown = await runDsh(['catalog'], { cwd: dir, home: dir });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(/plugins: Unrecognized key: "toolFS"/);
    put(dir, 'dsh.config.json', JSON.stringify({ defaultDecision: 'maybe' }));
    const typed = await runDsh(['catalog'], { cwd: dir, home: dir });
    expect(typed.code).toBe(3);
    expect(typed.stderr).toContain('defaultDecision:');
    put(dir, 'other.json', '{ "plugins": ');
    const broken = await runDsh(['catalog', '--config', 'other.json'], { cwd: dir, home: dir });
    expect(broken.code).toBe(3);
    expect(broken.stderr).toContain('CONFIG_UNREADABLE');
    const absent = await runDsh(['catalog', '--config', 'nope.json'], { cwd: dir, home: dir });
    expect(absent.code).toBe(3);
  });

  it('prints the catalog of the configured plugins, without the ones turned off', async () => {
    const dir = scratchDir();
    const all = await runDsh(['catalog', '--json'], { cwd: dir, home: dir });
    expect(all.code).toBe(0);
    const catalog = JSON.parse(all.stdout) as { tools: { name: string }[]; events: { type: string }[] };
    expect(catalog.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['bash', 'read', 'edit', 'grep', 'run_code']));
    expect(catalog.events.map((e) => e.type)).toEqual(expect.arrayContaining(['tool/call', 'bash/sandbox', 'retry/attempt']));
    put(dir, 'dsh.config.json', JSON.stringify({ plugins: { toolBash: false, codeMode: false } }));
    const some = await runDsh(['catalog'], { cwd: dir, home: dir });
    expect(some.code).toBe(0);
    expect(some.stdout).toContain('### `read`');
    // The committed file's "Generated by `pnpm catalog`… Do not edit by hand" means nothing to this reader.
    expect(some.stdout).not.toContain('Do not edit by hand');
    expect(some.stdout.split('\n').slice(0, 3).join('\n')).toMatch(
      /^# Catalog\n\nThe tools and session event types of the plugins configured by .*dsh\.config\.json\.$/,
    );
    expect(some.stdout).not.toContain('### `bash`');
    expect(some.stdout).not.toContain('### `run_code`');
  });
});
