import { ExitCode } from './exit-codes.js';

const exitCodes = `Exit codes:
  ${ExitCode.OK}   success
  ${ExitCode.EXPECTATION_FAILED}   an --expect expectation failed (or the demo saw an unexpected outcome,
      or dsh approve came after an earlier answer)
  ${ExitCode.USAGE}   bad command line
  ${ExitCode.CONFIG}   bad or unreadable configuration (dsh.config.json, --config), or an
      SDK missing (dsh approve --dbos: @dbos-inc/dbos-sdk)
  ${ExitCode.INPUT}   bad or unreadable input (transcript, expectations, --input)
  ${ExitCode.AGENT_STOPPED}   dsh run: the agent stopped before it finished (turn limit, Ctrl-C,
      a refusal, a failed model request); no API key is ${ExitCode.CONFIG}
  ${ExitCode.ENGINE}   dsh approve: the durable engine is unreachable or refused the answer
  ${ExitCode.INTERNAL}  internal error
`;

const helps: Readonly<Record<string, string>> = {
  demo: `Usage: dsh demo [--no-sandbox] [--no-color]

A scripted session in a fresh temporary workspace, offline and with no
configuration, that goes through every plugin in fifteen steps:
   1. two files read in parallel, allowed by the permission mode
   2. an edit of a file just read: its diff, and a PostToolUse hook's note
   3. an edit of a file never read (read-before-edit), a symlink escape
   4. a command with live output
   5. a command killed by its timeout, with its whole process tree
   6. a PreToolUse hook from .claude/settings.json blocking rm -rf
   7. a write outside the workspace stopped by the sandbox (bubblewrap only)
   8. an approval overruled by a guard
   9. a Code Mode program that reads, greps and sums up three files
  10. a forbidden write inside a program, caught by the program
  11. a todo list (todo_write)
  12. a skill from .claude/skills loaded, its bundled file kept read-only
  13. an MCP server over stdio: one tool allowed by a rule, one denied
  14. a subagent whose calls meet the same hooks and rules
  15. web_fetch of a page from a server on 127.0.0.1: asked, approved
Prints the JSONL session log's path (read it with dsh log). Exits 1 if any
call ends differently than it should.

Options:
  --no-sandbox   run commands without bubblewrap even where it works
  --no-color     plain output (also: NO_COLOR=1; colour is only used on a TTY)
`,
  replay: `Usage: dsh replay <transcript.jsonl> [--config FILE] [--workspace DIR]
                  [--execute] [--approval allow|deny] [--expect FILE] [--json] [--strict]

Reads a Claude Code transcript (assistant tool_use blocks) or a dsh session log,
maps each call onto the configured tools through their external names, and runs
it through the pre-execute taps, the approval policy and the guards. Bodies do
not run (a dry run) unless --execute, which runs them in a scratch copy of the
workspace. Prints one row per call (call, tool, target: the file path or
command, decision, deciding stage, who decided, reason; reasons are whole when
stdout is not a terminal) and how many calls each policy denied or asked.
With the permissions plugin it then tells how to fix the policy: how many
calls each allow, ask and deny rule decided (and which never matched), and
allow rules in Claude Code's syntax for the calls that were asked most often,
each with the calls it covers, ready to paste into .claude/settings.json.
Configuration problems are printed first (file, line, column), and while there
is one no rule is suggested: the policy replayed is not the one configured.

Options:
  -c, --config FILE     configuration (default: ./dsh.config.json if present)
  -w, --workspace DIR   the workspace (default: the configuration's, else .)
  --execute             run the bodies, in a scratch copy of the workspace
  --approval allow|deny how a call left at "ask" is answered (default: the
                        configuration's "approval", else allow)
  --expect FILE         JSON expectations; exit 1 when one fails
  --json                machine-readable output
  --strict              a configuration problem (a settings file that is not JSON,
                        a rule or hook left out) is fatal: exit 3, nothing runs
`,
  'hooks check': `Usage: dsh hooks check --tool NAME [--input JSON] [--settings FILE]
                      [--config FILE] [--workspace DIR] [--expect allow|deny|ask|none] [--json] [--strict]
       dsh hooks check [--workspace DIR] [--config FILE] [--json]

Runs the hook configuration on one sample call and shows, for every hook, why it
matched or did not; for each one that ran: command, stdin, exit code, stdout,
stderr and the decision read from it; then the combined decision. Tool bodies
never run. Without --tool: lists the hook files looked at (read or missing),
the hooks found and every entry skipped, with why (as dsh config check does).

Options:
  --tool NAME           a dsh tool (bash, edit) or another agent's name (Bash, Edit)
  --input JSON          the tool input, in the vocabulary of --tool (default {})
  --settings FILE       a hooks file to check instead of the workspace's
                        (.claude/settings.json shape; .gemini/ and .github/hooks/
                        paths are read as Gemini CLI and Copilot CLI files)
  --expect DECISION     exit 1 unless the combined decision is this (none: no hook decided)
  --json                machine-readable output
  --strict              a configuration problem (a settings file that is not JSON,
                        a rule or hook left out) is fatal: exit 3, nothing runs
`,
  'config check': `Usage: dsh config check [DIR] [--config FILE] [--json]

Lists, for a project folder (DIR, else the configuration's workspace, else the
current directory), every file dsh reads and whether it was there: settings at
each level (~/.claude/settings.json, .claude/settings.json,
.claude/settings.local.json), hook files (.claude, .gemini, .github/hooks),
skill folders and SKILL.md files, .claude/agents/*.md, .mcp.json; then every
permission rule with its file and line, the hooks, skills, agents and MCP
servers found, everything skipped and why (with the plugin's code), and every
rule dsh reads differently from Claude Code, with the Claude Code version the
difference refers to. Nothing runs: no tool, hook or MCP server. Every
plugin's options are checked as the other commands check them. Exits 3 when
anything is wrong: invalid options, a file or entry skipped, a hook script
that cannot be executed.

Options:
  --json                machine-readable output (the whole report)
`,
  approve: `Usage: dsh approve <session> <call> allow|deny [--message TEXT]
                   [--ingress URL [--object NAME] | --dbos URL [--dbos-app NAME] [--dbos-name NAME]]
                   [--timeout SECONDS] [--json]

Answers the approval a durable session's call waits on (@deepseek-ai/dsh-durable
on Restate, or on DBOS with --dbos): the call asked, its worker may be running
or down, the answer is kept either way and the call gets it when it next runs.
It may even come before the call asks (on DBOS: once its step, or the
session's program, is submitted). The first answer is final: a later one
changes nothing and exits 1.

Options:
  --message TEXT   why: with a deny, the model reads it
  --ingress URL    the Restate ingress (default: DSH_RESTATE_INGRESS, else
                   http://127.0.0.1:8080)
  --dbos URL       answer on DBOS instead: the workers' system database
                   (default: DSH_DBOS_DATABASE_URL, unless --ingress is given);
                   needs npm install @dbos-inc/dbos-sdk
  --dbos-app NAME  the workers' DBOS application name (default: dsh)
  --dbos-name NAME the workers' session definition name (default: dsh-session)
  --object NAME    the Restate session object's name (default: dsh-session)
  --timeout SECONDS  how long to wait for the engine (default: 30); past it,
                   ENGINE_TIMEOUT, exit 6
  --json           machine-readable output
`,
  log: `Usage: dsh log <session.jsonl> [--call ID] [--json] [--config FILE]

Reads a dsh session log (JSONL) and tells its story step by step: each call's
card as the demo shows it, how long it took, what the permission rules decided
and which rule or mode decided it, approvals asked and who answered, hooks run,
late settlements, the context handed to the model, and Code Mode sub-calls
under the program that made them. A last line cut mid-write is left out and
said; event types this version does not know are shown raw.

Options:
  --call ID       every event of one call (and its sub-calls), in order
  --json          machine-readable output (steps, calls, decisions, approvals,
                  hooks and every event as logged)
  -c, --config FILE  the configuration whose tools draw the cards
                  (default: ./dsh.config.json if present, else every plugin)
`,
  run: `Usage: dsh run "TASK" [--provider P] [--model M] [--base-url URL]
               [--max-turns N] [--log FILE] [--config FILE] [--strict] [--inbox]

A coding agent in the current directory (the configuration's workspace) with
the configured plugins: the model's answer streams to the terminal, calls are
drawn as cards with live output, and every call goes through your hooks,
permission rules, guards and timeouts. A call that needs approval is asked
here ([y] once, [s] for the session, [n] no); when stdin is not a terminal it
is refused, with a reason the model reads. Ctrl-C stops the agent with every
started call answered; twice quits at once. The session log's path is printed
at the start and the end (read it with dsh log).

The API key comes from the environment: DEEPSEEK_API_KEY (the default
provider), OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or GOOGLE_API_KEY.

Options:
  -p, --provider P   deepseek (default: DeepSeek's OpenAI-compatible API,
                     model deepseek-v4-flash), openai, openai-responses,
                     anthropic, gemini
  -m, --model M      the model (required for every provider but deepseek)
  --base-url URL     the API's base URL (a proxy, a compatible server)
  --max-turns N      the most model turns (default 50)
  --log FILE         the session log (default ~/.dsh/sessions/<time>-<id>.jsonl)
  -c, --config FILE  configuration (default: ./dsh.config.json if present)
  --strict           a configuration problem is fatal: exit 3, nothing runs
`,
  'mcp list': `Usage: dsh mcp list [--config FILE] [--json] [--strict]

Starts the configured MCP servers (mcpServers of .claude/settings.json and
.mcp.json in the workspace, and plugins.mcp of dsh.config.json), waits for
their first start, and lists each: state (ready, failed, invalid, …), transport,
pid, protocol version, the server's own name, its last error and stderr tail
when it is not ready; each tool by its dsh name (mcp__<server>__<tool>) with
the permission rules that name it (and where they are written), what the rules
and mode decide for it, and the hooks whose matcher matches it; tools left out
and why; configuration problems. The servers are stopped before dsh exits.
Exits 0 whatever the servers' states.

Options:
  -c, --config FILE  configuration (default: ./dsh.config.json if present)
  --json             machine-readable output
  --strict           a configuration problem is fatal: exit 3, nothing runs
  --inbox            also open the approval inbox (a page on 127.0.0.1; its URL
                     with the secret token is printed once): approvals wait there
                     as well as at the terminal, the first answer wins; without
                     a terminal they wait only there
`,
  inbox: `Usage: dsh inbox [--logs DIR] [--port N] [--host ADDR]
       dsh inbox --durable restate --logs DIR [--ingress URL] [--object NAME]
       dsh inbox --durable dbos --logs DIR --dbos URL [--dbos-app NAME] [--dbos-name NAME]

The approval inbox on a folder of session logs: a local web page listing each
log as a session (running, waiting, done, failed), its calls as cards,
streamed live as the logs grow. Prints the URL to open once: it holds a secret
token that the page trades for a cookie. Serves until Ctrl-C. Approvals of
these sessions are shown; answer them where each session runs (dsh run
--inbox opens an inbox that can answer), or, for a durable worker's logDir
(--durable), in the page itself.

Options:
  --logs DIR     the folder of session logs (default ~/.dsh/sessions, where
                 dsh run writes)
  --port N       the port (default: any free one)
  --host ADDR    the address to bind (default 127.0.0.1)
  --durable restate|dbos
                 the folder is a durable worker's logDir: the page answers its
                 sessions' approvals through the engine, with dsh approve's
                 flags (--ingress, --object; --dbos, --dbos-app, --dbos-name)
`,
  catalog: `Usage: dsh catalog [--config FILE] [--json] [--strict]

Prints the tool schemas (JSON Schema) and session event types of the configured
plugins, as Markdown, or JSON with --json.

Options:
  -c, --config FILE  configuration (default: ./dsh.config.json if present)
  --json             machine-readable output
  --strict           a configuration problem is fatal: exit 3, nothing runs
`,
};

/** The help of one command, or undefined for an unknown one. The exit codes are listed once, in `dsh --help`. */
export function commandHelp(command: string): string | undefined {
  const text = helps[command];
  return text === undefined ? undefined : `${text}\nExit codes: dsh --help lists them.\n`;
}

/** \`dsh --help\`. */
export function mainHelp(): string {
  return `Usage: dsh <command> [options]

Commands:
  run "TASK"    a coding agent here, every call through your hooks and rules
  demo          a scripted session through the whole pipeline (offline, no setup)
  replay FILE   dry-run your policies on a recorded transcript or session log
  log FILE      read a session log: steps, cards, decisions, approvals, hooks
  inbox         a web page of the session logs, live (dsh run --inbox: answer there)
  approve S C allow|deny
                answer the approval a durable session's call waits on
  hooks check   run your hook configuration on one sample call and explain it
  config check  every file, rule, hook, skill and agent read, what was skipped,
                and where dsh reads a rule differently from Claude Code
  mcp list      the MCP servers, their tools, and the rules and hooks that apply
  catalog       the tool schemas and event types of the configured plugins

Every command takes --help. Configuration: dsh.config.json in the current
directory, or --config FILE.

${exitCodes}`;
}
