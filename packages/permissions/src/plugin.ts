import { join, resolve } from 'node:path';
import {
  type AnyToolDefinition,
  type ApprovalProvider,
  type Args,
  type CallIdentity,
  definePlugin,
  type Host,
  type Plugin,
} from '@deepseek-ai/dsh-core';
import {
  type Anchors,
  RuleSet,
  type RuleSubject,
  realOrSelf,
  type SourcedRule,
  type SubjectOptions,
  subjectOf,
} from '@deepseek-ai/dsh-rules';
import { anchorsOf, sameAnchors } from './anchors.js';
import { CallInput } from './call-input.js';
import { type DecidedBy, decide, type PermissionDecision, type PermissionMode, permissionModes } from './decide.js';
import { PermissionsError, PermissionsErrorCode } from './errors.js';
import type { DecisionEventData } from './events.js';
import { permissionsEventSchemas } from './events.js';
import { type Grant, type GrantScope, GrantStore } from './grants.js';
import { type PermissionsOptions, parsePermissionsOptions } from './options.js';
import { type PermissionPrompt, type PermissionPromptReply, type RememberReply, suggestGrants } from './remember.js';
import { sandboxPart } from './sandbox-part.js';
import { noSandboxSettings } from './sandbox-settings.js';
import { defaultSettingsFiles, type LoadedSettings, loadSettings, type PermissionProblem } from './settings.js';
import { version } from './version.js';

/** The remembered approvals of a {@link PermissionsPlugin}, to review and revoke. */
export interface GrantsApi {
  /** This session's grants, then this agent's project grants (every agent's with `all`). Rejects with `GRANTS_FILE_CORRUPT` on a bad file. */
  list(options?: { readonly all?: boolean }): Promise<Grant[]>;
  /** Records a grant as if the user had chosen it. */
  add(scope: GrantScope, rules: readonly string[]): Promise<Grant>;
  /** Removes a grant by id; false when there is none. */
  revoke(id: string): Promise<boolean>;
}

/** The `permissions()` plugin, with the approval wrapper and the APIs to review and steer it. */
export interface PermissionsPlugin extends Plugin {
  /**
   * Wraps a prompt into the host's `ApprovalProvider`: pass the result as
   * `createHost({ approval })`. The prompt may answer `allowed-session` or
   * `allowed-project` with rules; they are recorded as a grant and the call
   * is allowed once. Usable before the plugin is registered.
   */
  approval(prompt: PermissionPrompt): ApprovalProvider;
  readonly grants: GrantsApi;
  /** The current mode. */
  mode(): PermissionMode;
  /** Switches mode (Claude Code's shift+tab). `bypassPermissions` throws `BYPASS_DISABLED` when a settings file forbids it. */
  setMode(mode: PermissionMode): void;
  /** Configuration problems found so far (bad rules, bad files); the rest of the configuration applies. */
  problems(): readonly PermissionProblem[];
  /** The configured rules with their origins, in load order. */
  rules(): readonly SourcedRule[];
  /** Reads the settings files again (after an edit): the rules are replaced, new problems reported; the mode stays. */
  reload(): Promise<void>;
  /** What the rules and mode decide for a call to a registered tool, without running it or logging anything. */
  check(toolName: string, args: Args): PermissionDecision;
}

interface Pending {
  readonly args: Args;
  readonly subject: RuleSubject;
  readonly decision: PermissionDecision;
}

const maxPending = 4096;
const pathsResolved: SubjectOptions = Object.freeze({ pathsResolved: true });

/**
 * Claude Code's permission rules, modes and remembered approvals as a dsh
 * plugin: a `tools/pre-execute` tap decides every call from `allow`, `deny`
 * and `ask` rules (settings files and options), remembered grants and the
 * mode; a guard re-checks deny and ask rules on the final arguments.
 * Options are validated here (`INVALID_OPTIONS`).
 */
export function permissions(options: PermissionsOptions = {}): PermissionsPlugin {
  const o = parsePermissionsOptions(options);
  // The options' anchors until the plugin is registered; the host's (unless the options override them) from then on.
  let anchors: Anchors = anchorsOf(o);
  const agent = o.agent ?? 'main';
  const grantsFileOf = (a: Anchors) =>
    o.grantsFile === false ? undefined : (o.grantsFile ?? join(a.projectDir, '.dsh', 'permission-grants.json'));
  const scopes: GrantScope[] = (o.remember ?? ['session', 'project']).filter((s) => s === 'session' || o.grantsFile !== false);
  const readOnly = new Set(o.readOnlyTools ?? []);
  const pending = new Map<string, Pending>();
  let host: Host | undefined;
  let settings: LoadedSettings = { rules: [], problems: [], additionalDirectories: [], bypassDisabled: false };
  let ruleSet = new RuleSet([], anchors);
  let workspace: string[] = [];
  let mode: PermissionMode = o.mode ?? 'default';
  let loaded = false;
  const problems: PermissionProblem[] = [];
  const reported = new Set<string>();

  const report = (problem: PermissionProblem): void => {
    const key = `${problem.code}\u0000${problem.message}`;
    if (reported.has(key)) return;
    reported.add(key);
    problems.push(Object.freeze(problem));
    host?.diagnostics.record(problem.code, 'permissions', problem.message);
    void host?.events.emit('permissions/problem', problem).catch(() => undefined);
  };
  const storeFor = (a: Anchors) =>
    new GrantStore({
      file: grantsFileOf(a),
      project: realOrSelf(a.projectDir),
      agent,
      anchors: a,
      lockTimeoutMs: o.lockTimeoutMs ?? 5000,
      onProblem: (error) => report(problemOf(error)),
    });
  let store = storeFor(anchors);

  const load = async (): Promise<void> => {
    const files = o.settingsFiles === false ? [] : (o.settingsFiles ?? defaultSettingsFiles(anchors));
    settings = await loadSettings(files, o.rules, anchors);
    ruleSet = new RuleSet(settings.rules, anchors);
    const dirs = [
      anchors.projectDir,
      anchors.cwd,
      ...(o.additionalDirectories ?? []).map((d) => resolve(anchors.projectDir, d)),
      ...settings.additionalDirectories,
    ];
    workspace = [...new Set(dirs.flatMap((d) => [d, realOrSelf(d)]))];
    // defaultMode sets the starting mode only: a reload keeps the mode the session switched to.
    if (!loaded && o.mode === undefined && settings.defaultMode !== undefined) mode = settings.defaultMode.mode;
    loaded = true;
    if (mode === 'bypassPermissions' && settings.bypassDisabled) {
      mode = 'default';
      report({
        code: PermissionsErrorCode.BYPASS_DISABLED,
        message: 'bypassPermissions is disabled by a settings file (disableBypassPermissionsMode); using default',
      });
    }
    for (const problem of settings.problems) report(problem);
    // Sandboxes read the rules and the sandbox settings again from the next command on.
    host?.sandboxPolicy.changed();
  };

  // `fromPipeline`: the args are the call's effective args. Core ran the tool's `resolvePaths` on them before
  // any tap (and again on a tap's rewrite), so a tool declaring it hands over the path its body opens: a
  // second realpath would cost a readlink per path part and could only disagree if the disk changed meanwhile.
  const subjectFor = (tool: AnyToolDefinition, args: Args, fromPipeline: boolean): RuleSubject => {
    const options = fromPipeline && tool.resolvePaths !== undefined ? pathsResolved : undefined;
    const claude = tool.external?.claude;
    if (claude === undefined) return subjectOf(tool.name, args, anchors, tool.name, options);
    let input: Record<string, unknown>;
    try {
      input = claude.toExternal(args);
    } catch (error) {
      throw new Error(`tool "${tool.name}" could not map its arguments to Claude Code's "${claude.name}": ${(error as Error).message}`);
    }
    return subjectOf(claude.name, input, anchors, tool.name, options);
  };

  const decideFor = (
    tool: AnyToolDefinition,
    args: Args,
    prior?: { decision: 'allow' | 'ask'; tap: string; reason?: string | undefined },
    fromPipeline = true,
  ): Pending => {
    const subject = subjectFor(tool, args, fromPipeline);
    const decision = decide(new CallInput(subject, mode, ruleSet, workspace, readOnly.has(tool.name), store, prior));
    return { args, subject, decision };
  };

  const remember = (call: CallIdentity, entry: Pending): void => {
    if (pending.size >= maxPending) pending.delete(pending.keys().next().value as string);
    pending.set(keyOf(call), entry);
  };

  const plugin: PermissionsPlugin = {
    name: 'permissions',
    version,
    async register(h) {
      if (host !== undefined) {
        throw new PermissionsError(
          PermissionsErrorCode.ALREADY_REGISTERED,
          'this permissions() instance is already registered on a host; create one per host',
        );
      }
      host = h;
      const sessionAnchors = anchorsOf(o, h.anchors);
      if (!sameAnchors(sessionAnchors, anchors)) {
        anchors = sessionAnchors;
        store = storeFor(anchors);
      }
      for (const [type, schema] of Object.entries(permissionsEventSchemas)) h.events.define(type, schema);
      await load();
      if (o.sandboxPolicy !== false)
        h.sandboxPolicy.contribute('permissions', () =>
          sandboxPart(settings.rules, settings.sandbox ?? noSandboxSettings, anchors, [
            ...(o.additionalDirectories ?? []).map((d) => resolve(anchors.projectDir, d)),
            ...settings.additionalDirectories,
          ]),
        );
      // A rule dsh applies with a meaning other than Claude Code's is a warning; everything else fails a strict set-up.
      const failing = problems.filter((p) => p.difference?.dsh !== 'applied');
      if (o.strict === true && failing.length > 0) {
        throw new PermissionsError(failing[0]?.code as PermissionsErrorCode, failing.map((p) => p.message).join('\n'));
      }
      h.hooks.preExecute.tap({ name: 'permissions', stage: o.stage ?? 100 }, (state, info) => {
        const prior =
          state.decidedBy === undefined || state.decision === 'deny'
            ? undefined
            : { decision: state.decision, tap: state.decidedBy, reason: state.reason };
        const entry = decideFor(info.tool, state.args, prior);
        remember(info.call, entry);
        if (o.recordDecisions !== false)
          void h.events.emit('permissions/decision', eventOf(info.tool.name, entry.decision), info.call).catch(() => undefined);
        // A call allowed because of a remembered grant is logged by core as an approval the grant answered.
        const grant = entry.decision.decision === 'allow' ? entry.decision.by.find((by) => by.kind === 'grant') : undefined;
        if (grant !== undefined) {
          return {
            decision: 'allow',
            reason: entry.decision.reason,
            remembered: { grant: grant.grant, message: `remembered approval "${grant.rule}"` },
          };
        }
        return { decision: entry.decision.decision, reason: entry.decision.reason };
      });
      h.hooks.result.tap('permissions', (_outcome, info) => {
        pending.delete(keyOf(info.call));
      });
      if (o.guard !== false) {
        h.guards.register({
          id: 'permissions',
          check(input) {
            const seen = pending.get(keyOf(input.call));
            const entry = seen !== undefined && seen.args === input.args ? seen : decideFor(input.tool, input.args);
            const { decision } = entry;
            // Only rules and plan mode are enforced here; what the mode would ask or deny was the tap's to decide.
            const fromRuleOrPlan = decision.by.some((b) => b.kind === 'rule' || (b.kind === 'mode' && b.mode === 'plan'));
            if (decision.decision === 'deny' && seen !== entry && fromRuleOrPlan) {
              return { deny: `${decision.reason} (checked again on the final arguments)` };
            }
            const askRule = decision.decision === 'ask' && decision.by.some((b) => b.kind === 'rule' && b.list === 'ask');
            if (askRule && input.allowedBy === 'pre-execute') {
              return { deny: `${decision.reason}, but a later pre-execute tap allowed the call without asking` };
            }
            return 'abstain';
          },
        });
      }
    },
    approval(prompt) {
      return async (request) => {
        const entry = pending.get(keyOf(request.call));
        const tool = host?.tools.get(request.tool.name);
        const decision = entry?.decision;
        const offered = decision?.rememberable === true ? scopes : [];
        let suggestions: ReturnType<typeof suggestGrants> = [];
        if (offered.length > 0 && tool !== undefined) {
          const current = entry !== undefined && entry.args === request.args ? entry : decideFor(tool, request.args);
          suggestions = suggestGrants(current.subject, current.decision);
        }
        const reply = await prompt({
          ...request,
          decision,
          remember: { scopes: suggestions.length > 0 ? offered : [], suggestions },
        });
        if (!isRemember(reply)) return reply;
        const scope: GrantScope = reply.answer === 'allowed-session' ? 'session' : 'project';
        const rules = reply.rules ?? suggestions[0]?.rules;
        if (!offered.includes(scope) || rules === undefined) {
          report({
            code: PermissionsErrorCode.INVALID_GRANT,
            message: `the prompt answered ${reply.answer} for call ${request.call.id}, but remembering was not offered for it; allowed once only`,
          });
          return 'allowed-once';
        }
        try {
          const grant = await store.add(scope, rules, { session: host?.session ?? '', tool: request.tool.name });
          void host?.events.emit('permissions/grant', { action: 'added', grant }, request.call).catch(() => undefined);
          // Core's approval/answer names the grant this answer created.
          return { answer: 'allowed-once', grant: grant.id };
        } catch (error) {
          report(problemOf(error));
        }
        return 'allowed-once';
      };
    },
    grants: {
      list: (listOptions) => store.list(listOptions),
      async add(scope, rules) {
        const grant = await store.add(scope, rules, { session: host?.session ?? '' });
        void host?.events.emit('permissions/grant', { action: 'added', grant }).catch(() => undefined);
        return grant;
      },
      async revoke(id) {
        const known = (await store.list({ all: true }).catch(() => [] as Grant[])).find((g) => g.id === id);
        const removed = await store.revoke(id);
        if (removed && known !== undefined)
          void host?.events.emit('permissions/grant', { action: 'revoked', grant: known }).catch(() => undefined);
        return removed;
      },
    },
    mode: () => mode,
    setMode(next) {
      if (!permissionModes.includes(next)) {
        throw new PermissionsError(
          PermissionsErrorCode.INVALID_OPTIONS,
          `unknown permission mode ${JSON.stringify(next)}; use one of ${permissionModes.join(', ')}`,
        );
      }
      if (next === 'bypassPermissions' && settings.bypassDisabled) {
        throw new PermissionsError(
          PermissionsErrorCode.BYPASS_DISABLED,
          'bypassPermissions is disabled by a settings file (disableBypassPermissionsMode)',
        );
      }
      mode = next;
    },
    problems: () => problems.slice(),
    rules: () => settings.rules,
    reload: load,
    check(toolName, args) {
      const tool = host?.tools.get(toolName);
      if (host === undefined || tool === undefined) {
        throw new PermissionsError(
          PermissionsErrorCode.NOT_REGISTERED,
          host === undefined ? 'permissions is not registered on a host yet' : `there is no tool named "${toolName}"`,
        );
      }
      // Arguments from the caller, not the pipeline: nothing resolved their paths yet.
      return decideFor(tool, args, undefined, false).decision;
    },
  };
  return definePlugin(plugin) as PermissionsPlugin;
}

function isRemember(reply: PermissionPromptReply | string): reply is RememberReply {
  return typeof reply === 'object' && reply !== null && (reply.answer === 'allowed-session' || reply.answer === 'allowed-project');
}

function keyOf(call: CallIdentity): string {
  return `${call.token}\u0000${call.id}`;
}

function eventOf(tool: string, d: PermissionDecision): DecisionEventData {
  const by = d.by as DecidedBy[];
  return d.uncovered === undefined
    ? { tool, decision: d.decision, mode: d.mode, reason: d.reason, by }
    : { tool, decision: d.decision, mode: d.mode, reason: d.reason, by, uncovered: d.uncovered };
}

function problemOf(error: unknown): PermissionProblem {
  if (error instanceof PermissionsError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.file === undefined ? {} : { file: error.file }),
      ...(error.rule === undefined ? {} : { rule: error.rule }),
    };
  }
  return { code: PermissionsErrorCode.GRANTS_FILE_UNWRITABLE, message: (error as Error)?.message ?? String(error) };
}
