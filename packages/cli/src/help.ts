import { ExitCode } from './exit-codes.js';

const exitCodes = `Exit codes:
  ${ExitCode.OK}   success
  ${ExitCode.EXPECTATION_FAILED}   an --expect expectation failed (or the demo saw an unexpected outcome)
  ${ExitCode.USAGE}   bad command line
  ${ExitCode.CONFIG}   bad or unreadable configuration (dsh.config.json, --config)
  ${ExitCode.INPUT}   bad or unreadable input (transcript, expectations, --input)
  ${ExitCode.INTERNAL}  internal error
`;

const helps: Readonly<Record<string, string>> = {
  demo: `Usage: dsh demo [--no-sandbox] [--no-color]

A scripted session in a fresh temporary workspace that uses every plugin: files
read and edited (with a diff), read-before-edit, a symlink escape, a command with
live output, one killed by its timeout, a Claude Code hook blocking rm -rf, a
write outside the workspace stopped by the sandbox, a guard overruling an
approval, and two Code Mode programs. Prints the JSONL session log's path.
Offline, no configuration. Exits 1 if any call ends differently than it should.

Options:
  --no-sandbox   run commands without bubblewrap even where it works
  --no-color     plain output (also: NO_COLOR=1; colour is only used on a TTY)
`,
  replay: `Usage: dsh replay <transcript.jsonl> [--config FILE] [--workspace DIR]
                  [--execute] [--approval allow|deny] [--expect FILE] [--json]

Reads a Claude Code transcript (assistant tool_use blocks) or a dsh session log,
maps each call onto the configured tools through their external names, and runs
it through the pre-execute taps, the approval policy and the guards. Bodies do
not run (a dry run) unless --execute, which runs them in a scratch copy of the
workspace. Prints one row per call (call, tool, decision, deciding stage,
reason) and how many calls each policy denied or asked.

Options:
  -c, --config FILE     configuration (default: ./dsh.config.json if present)
  -w, --workspace DIR   the workspace (default: the configuration's, else .)
  --execute             run the bodies, in a scratch copy of the workspace
  --approval allow|deny how a call left at "ask" is answered (default: the
                        configuration's "approval", else allow)
  --expect FILE         JSON expectations; exit 1 when one fails
  --json                machine-readable output
`,
  'hooks check': `Usage: dsh hooks check --tool NAME [--input JSON] [--settings FILE]
                      [--config FILE] [--workspace DIR] [--expect allow|deny|ask|none] [--json]

Runs the hook configuration on one sample call and shows, for every hook, why it
matched or did not; for each one that ran: command, stdin, exit code, stdout,
stderr and the decision read from it; then the combined decision. Tool bodies
never run.

Options:
  --tool NAME           a dsh tool (bash, edit) or another agent's name (Bash, Edit)
  --input JSON          the tool input, in the vocabulary of --tool (default {})
  --settings FILE       a hooks file to check instead of the workspace's
                        (.claude/settings.json shape; .gemini/ and .github/hooks/
                        paths are read as Gemini CLI and Copilot CLI files)
  --expect DECISION     exit 1 unless the combined decision is this (none: no hook decided)
  --json                machine-readable output
`,
  catalog: `Usage: dsh catalog [--config FILE] [--json]

Prints the tool schemas (JSON Schema) and session event types of the configured
plugins, as Markdown, or JSON with --json.
`,
};

/** The help of one command, or undefined for an unknown one. */
export function commandHelp(command: string): string | undefined {
  const text = helps[command];
  return text === undefined ? undefined : `${text}\n${exitCodes}`;
}

/** \`dsh --help\`. */
export function mainHelp(): string {
  return `Usage: dsh <command> [options]

Commands:
  demo          a scripted session through the whole pipeline (offline, no setup)
  replay FILE   dry-run your policies on a recorded transcript or session log
  hooks check   run your hook configuration on one sample call and explain it
  catalog       the tool schemas and event types of the configured plugins

Every command takes --help. Configuration: dsh.config.json in the current
directory, or --config FILE.

${exitCodes}`;
}
