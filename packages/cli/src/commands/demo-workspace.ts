import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The demo's fresh temporary directory: a workspace, a file outside it, and where the session log goes. */
export interface DemoWorkspace {
  /** The temporary directory holding everything below. */
  readonly base: string;
  /** The workspace: the tools' only root. */
  readonly root: string;
  /** A file outside the workspace that a symlink inside points at. */
  readonly outsideFile: string;
  /** Where the JSONL session log is written. */
  readonly logPath: string;
  /** A home directory with no settings, so the user's own `~/.claude` never changes the demo. */
  readonly home: string;
}

/** A PreToolUse hook as a user would write it for Claude Code: exit 2 with a reason blocks `rm -rf`. */
const blockRm = `#!/bin/sh
# PreToolUse hook: refuse rm -rf, exactly as in Claude Code (exit 2, reason on stderr).
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command" *: *"[^"]*rm +-(rf|fr|r +-f)'; then
  echo "rm -rf is not allowed in this project (.claude/hooks/block-rm.sh)" >&2
  exit 2
fi
exit 0
`;

/** A PostToolUse hook that reminds the model to run the tests, only after a change under src/. */
const srcChanged = `#!/bin/sh
# PostToolUse hook on Edit and Write: after a change under src/, add a note for the model.
input=$(cat)
if printf '%s' "$input" | grep -Eq '"file_path" *: *"([^"]*/)?src/'; then
  printf '%s\\n' '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Note from .claude/hooks/src-changed.sh: run the tests after changing src/."}}'
fi
exit 0
`;

/** The project's Claude Code settings: hooks for the hooks bridge, rules for the permissions plugin. */
const settings = {
  permissions: {
    defaultMode: 'acceptEdits',
    allow: ['Bash(echo *)', 'Bash(sleep *)', 'Bash(ls *)'],
    ask: ['Bash(git push *)'],
    deny: ['Edit(./config/**)', 'Read(./.env)'],
  },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh' }] }],
    PostToolUse: [
      { matcher: 'Edit|Write|MultiEdit', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/src-changed.sh' }] },
    ],
  },
};

const files: Readonly<Record<string, string>> = {
  'README.md': '# Demo project\n\nA tiny project for `dsh demo`.\n',
  'src/app.js': "import { greet } from './util.js';\n\n// TODO: read the name from the command line\nconsole.log(greet('world'));\n",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the file's own JavaScript template literal
  'src/util.js': '// TODO: translate the greeting\nexport function greet(name) {\n  return `Hello, ${name}!`;\n}\n',
  'src/math.js': 'export const add = (a, b) => a + b;\n// TODO: subtract\n',
  'config/production.json': '{ "database": "prod.example.internal" }\n',
  '.claude/settings.json': `${JSON.stringify(settings, null, 2)}\n`,
  '.claude/hooks/block-rm.sh': blockRm,
  '.claude/hooks/src-changed.sh': srcChanged,
};

/** Makes the demo's directory under the OS temp dir. Nothing outside it is touched. */
export function createDemoWorkspace(): DemoWorkspace {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-demo-')));
  const root = join(base, 'workspace');
  const home = join(base, 'home');
  mkdirSync(home, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    if (path.endsWith('.sh')) chmodSync(full, 0o755);
  }
  const outsideFile = join(base, 'outside', 'secret.txt');
  mkdirSync(dirname(outsideFile), { recursive: true });
  writeFileSync(outsideFile, 'a secret that lives outside the workspace\n');
  symlinkSync(outsideFile, join(root, 'src', 'secret-link.txt'));
  return { base, root, outsideFile, logPath: join(base, 'session.jsonl'), home };
}
