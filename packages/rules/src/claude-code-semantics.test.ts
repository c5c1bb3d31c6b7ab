import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeDifferences } from './claude-differences.js';
import { checkRules, matchRule, testRule } from './match.js';
import { formatRule, parseRule, type RuleList } from './rule.js';

/*
 * Rules as they appear in real `.claude/settings.json` / `settings.local.json` files, each read the way
 * Claude Code reads it. Every case here was applied differently before (see the package's changeset).
 */

const root = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-rules-claude-')));
const proj = join(root, 'proj');
const home = join(root, 'home');
for (const dir of ['secrets', 'packages/api/secrets', 'generated', 'packages/web/generated', 'src'])
  mkdirSync(join(proj, dir), { recursive: true });
mkdirSync(home, { recursive: true });
writeFileSync(join(proj, '.env'), 'TOKEN=x');
writeFileSync(join(proj, 'packages/api/secrets/key.pem'), 'key');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const where = { cwd: proj, projectDir: proj, homeDir: home };

/** The `permissions` block of a settings file as Claude Code writes it, parsed from its JSON text. */
function settings(json: string): { allow?: string[]; deny?: string[]; ask?: string[] } {
  return (JSON.parse(json) as { permissions: { allow?: string[]; deny?: string[]; ask?: string[] } }).permissions;
}

describe('escaped parentheses, as "don\'t ask again" writes them (item 4)', () => {
  // Written by Claude Code into .claude/settings.local.json after "Yes, and don't ask again".
  const local = settings(String.raw`{
    "permissions": {
      "allow": ["Bash(npx jest --testPathPattern=\"\\(A|B\\)\")"],
      "deny": ["Bash(node -e \"require\\('fs'\\).rmSync\\('.', {recursive: true}\\)\")"]
    }
  }`);

  it('reads \\( and \\) as parentheses, so the rule is the command it was written for', () => {
    expect(parseRule(local.allow?.[0] as string).specifier).toBe('npx jest --testPathPattern="(A|B)"');
    expect(checkRules(local, 'Bash', { command: 'npx jest --testPathPattern="(A|B)"' }, where).decision).toBe('allow');
  });

  it('denies the unescaped command an escaped deny rule names', () => {
    const command = `node -e "require('fs').rmSync('.', {recursive: true})"`;
    expect(checkRules(local, 'Bash', { command }, where)).toEqual({ decision: 'deny', rules: [local.deny?.[0]] });
  });

  it('reads parentheses in a path rule literally, as gitignore does (Next.js route groups)', () => {
    const rules = settings(String.raw`{ "permissions": { "deny": ["Edit(app/\\(auth\\)/**)", "Read(app/(admin)/**)"] } }`);
    const page = join(proj, 'app/(auth)/login/page.tsx');
    expect(checkRules(rules, 'Edit', { file_path: page }, where).decision).toBe('deny');
    expect(checkRules(rules, 'Read', { file_path: join(proj, 'app/(admin)/page.tsx') }, where).decision).toBe('deny');
    expect(checkRules(rules, 'Edit', { file_path: join(proj, 'app/auth/login/page.tsx') }, where).decision).toBeUndefined();
  });

  it('formats rules with the same escapes, so a remembered rule reads back unchanged', () => {
    const specifier = String.raw`grep -E "a\|b" (x)`;
    const text = formatRule('Bash', specifier);
    expect(text).toBe(String.raw`Bash(grep -E "a\\|b" \(x\))`);
    expect(parseRule(text).specifier).toBe(specifier);
    expect(parseRule(formatRule('Bash', String.raw`echo a\*b`)).specifier).toBe(String.raw`echo a\*b`);
  });
});

describe('Read deny rules deny editing too (item 5)', () => {
  const project = settings(`{ "permissions": { "deny": ["Read(./.env)", "Read(**/secrets/**)"], "allow": ["Edit", "Write"] } }`);

  it.each([
    ['Edit', { file_path: join(proj, '.env'), old_string: 'x', new_string: 'y' }],
    ['Write', { file_path: join(proj, '.env'), content: 'TOKEN=stolen' }],
    ['MultiEdit', { file_path: join(proj, 'packages/api/secrets/key.pem'), edits: [] }],
  ] as const)('%s of a path a Read deny rule names is denied', (tool, input) => {
    expect(checkRules(project, tool, input, where).decision).toBe('deny');
  });

  it('leaves other paths to the allow rules, and a hook `if` on Read does not fire on Edit', () => {
    expect(checkRules(project, 'Edit', { file_path: join(proj, 'src/a.ts') }, where).decision).toBe('allow');
    expect(testRule('Read(./.env)', 'Edit', { file_path: join(proj, '.env') }, where).namesTool).toBe(false);
  });

  it('does not turn a Read ask or allow rule into one about edits', () => {
    expect(checkRules({ ask: ['Read(./.env)'] }, 'Edit', { file_path: join(proj, '.env') }, where).decision).toBeUndefined();
    expect(checkRules({ allow: ['Read(./.env)'] }, 'Write', { file_path: join(proj, '.env') }, where).decision).toBeUndefined();
  });
});

describe('deny and ask patterns with a slash match at any depth under the project (item 6)', () => {
  const project = settings(`{ "permissions": { "deny": ["Edit(secrets/**)"], "ask": ["Edit(generated/)"], "allow": ["Edit(src/**)"] } }`);

  it('denies nested/secrets/… as well as <cwd>/secrets/…', () => {
    expect(checkRules(project, 'Write', { file_path: join(proj, 'secrets/k') }, where).decision).toBe('deny');
    expect(checkRules(project, 'Edit', { file_path: join(proj, 'packages/api/secrets/key.pem') }, where).decision).toBe('deny');
  });

  it('asks for nested/generated/…', () => {
    expect(checkRules(project, 'Edit', { file_path: join(proj, 'packages/web/generated/x.ts') }, where).decision).toBe('ask');
  });

  it('keeps an allow rule anchored at cwd (stricter than Claude Code) and says so', () => {
    expect(checkRules(project, 'Edit', { file_path: join(proj, 'src/a.ts') }, where).decision).toBe('allow');
    expect(checkRules(project, 'Edit', { file_path: join(proj, 'packages/web/src/a.ts') }, where).decision).toBeUndefined();
    expect(claudeDifferences(parseRule('Edit(src/**)'), 'allow').map((d) => d.code)).toEqual(['ALLOW_PATH_ANCHORED']);
  });

  it('does not widen anchored forms: ./dir, /dir and patterns outside the project', () => {
    expect(matchRule('Edit(./secrets/**)', 'Edit', { file_path: join(proj, 'packages/api/secrets/key.pem') }, where)).toBe(false);
    expect(matchRule('Edit(/secrets/**)', 'Edit', { file_path: join(proj, 'packages/api/secrets/key.pem') }, where)).toBe(false);
    expect(matchRule('Edit(secrets/**)', 'Edit', { file_path: join(root, 'elsewhere/secrets/k') }, where)).toBe(false);
  });
});

describe('allow rules with a wildcard tool name (item 7)', () => {
  const user = settings(`{ "permissions": { "allow": ["mcp__*", "mcp__github__get*", "mcp__linear__*", "mcp__notes"] } }`);

  it('skips mcp__* and partial globs: they allow nothing, as in Claude Code', () => {
    expect(checkRules(user, 'mcp__prod_db__drop_table', { table: 'users' }, where).decision).toBeUndefined();
    expect(checkRules(user, 'mcp__github__get_issue', { number: 1 }, where).decision).toBeUndefined();
  });

  it('keeps mcp__server__* and mcp__server', () => {
    expect(checkRules(user, 'mcp__linear__create_issue', {}, where).decision).toBe('allow');
    expect(checkRules(user, 'mcp__notes__add', {}, where).decision).toBe('allow');
  });

  it('still applies wildcards in deny and ask rules', () => {
    expect(checkRules({ deny: ['mcp__*'], allow: ['mcp__linear__*'] }, 'mcp__linear__create_issue', {}, where).decision).toBe('deny');
    expect(checkRules({ ask: ['mcp__github__get*'] }, 'mcp__github__get_issue', {}, where).decision).toBe('ask');
  });

  it('names the skipped rules as differences', () => {
    const skipped = (user.allow ?? []).filter((r) => claudeDifferences(parseRule(r), 'allow').some((d) => d.dsh === 'skipped'));
    expect(skipped).toEqual(['mcp__*', 'mcp__github__get*']);
    expect(claudeDifferences(parseRule('mcp__*'), 'deny')).toEqual([]);
  });
});

describe('Task and Agent name the subagent tool both (item 8)', () => {
  const project = settings(`{ "permissions": { "deny": ["Task(db-admin)"], "ask": ["Agent(reviewer)"], "allow": ["Task"] } }`);

  it.each([
    ['Agent', 'db-admin', 'deny'],
    ['Task', 'db-admin', 'deny'],
    ['Agent', 'reviewer', 'ask'],
    ['Task', 'reviewer', 'ask'],
    ['Agent', 'planner', 'allow'],
  ] as const)('%s with subagent_type %s: %s', (tool, type, decision) => {
    expect(checkRules(project, tool, { description: 'd', prompt: 'p', subagent_type: type }, where).decision).toBe(decision);
  });

  it("applies a rule naming Task to the dsh tool that declares Claude Code's name Agent", () => {
    expect(testRule('Task(db-admin)', 'Agent', { subagent_type: 'db-admin' }, where)).toMatchObject({ namesTool: true, matches: true });
  });
});

describe('Skill rules with arguments (item 9)', () => {
  it.each([
    ['Skill(deploy:*)', 'deploy', true],
    ['Skill(deploy *)', 'deploy', true],
    ['Skill(deploy *)', '/deploy', true],
    ['Skill(deploy)', 'deploy', true],
    ['Skill(deploy:*)', 'deploy-docs', false],
    ['Skill(deploy-*)', 'deploy-docs', true],
    ['Skill(review:*)', 'deploy', false],
  ] as const)('%s applies to skill %s: %s', (rule, skill, applies) => {
    expect(matchRule(rule, 'Skill', { skill }, where)).toBe(applies);
  });

  it('denies a skill by name whatever its arguments, and allows only the named one', () => {
    const project = settings(`{ "permissions": { "deny": ["Skill(release:*)"], "allow": ["Skill(lint *)"] } }`);
    expect(checkRules(project, 'Skill', { skill: 'release', args: '--prod' }, where).decision).toBe('deny');
    expect(checkRules(project, 'Skill', { skill: 'lint', args: 'src' }, where).decision).toBe('allow');
    expect(checkRules(project, 'Skill', { skill: 'lint-fix' }, where).decision).toBeUndefined();
    expect(testRule('Skill(lint)', 'Skill', { args: 'x' }, where).unreadable).toBe('the input has no "skill"');
  });
});

describe('path rules Claude Code never consults (item 10)', () => {
  const lists: readonly [string, RuleList][] = [
    ['Write(/etc/**)', 'deny'],
    ['Glob(**)', 'allow'],
    ['Grep(**)', 'allow'],
    ['MultiEdit(./docs/**)', 'ask'],
  ];

  it.each(lists)('%s in %s is a PATH_RULE_NOT_CONSULTED difference that dsh still applies', (rule, list) => {
    const [difference] = claudeDifferences(parseRule(rule), list);
    expect(difference).toMatchObject({ code: 'PATH_RULE_NOT_CONSULTED', dsh: 'applied', rule, list });
    expect(difference?.claudeCode).toMatch(/^2\.1\.\d+$/);
  });

  it('keeps applying them: a Write deny denies Write', () => {
    expect(checkRules({ deny: ['Write(//etc/**)'] }, 'Write', { file_path: '/etc/hosts', content: '' }, where).decision).toBe('deny');
  });

  it('finds no difference in rules Claude Code reads the same way', () => {
    for (const [rule, list] of [
      ['Read(./.env)', 'deny'],
      ['Edit(/src/**)', 'allow'],
      ['Bash(git *)', 'allow'],
      ['mcp__github__*', 'allow'],
      ['Edit(**/x/**)', 'allow'],
    ] as const) {
      expect(claudeDifferences(parseRule(rule), list)).toEqual([]);
    }
  });
});
