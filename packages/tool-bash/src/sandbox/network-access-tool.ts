import {
  defineTool,
  type ExternalName,
  type GuardInput,
  type GuardVerdict,
  type Host,
  type PreExecuteTap,
  type ToolContext,
  z,
} from '@deepseek-ai/dsh-core';
import type { EgressDecision, EgressDestination, EgressProtocol } from '@deepseek-ai/dsh-egress';

/** The arguments of a network-access request: the destination, and the bash call whose command opened it. */
export const networkAccessInput = z.strictObject({
  host: z.string(),
  port: z.number().int().min(1).max(65_535),
  protocol: z.enum(['http-connect', 'http-forward', 'socks5']),
  /** The id of the bash call whose command asks. */
  call: z.string(),
});

/**
 * Toward Claude Code's permission rules and hooks, a destination is a
 * `WebFetch` of its host: `WebFetch(domain:…)` rules decide it, and the
 * grant an "always allow" remembers is that one domain (never every
 * destination). A hook's rewrite cannot move a connection: what comes back
 * lacks the bash call and protocol, so it fails validation and is denied.
 */
export const networkAccessClaudeName: ExternalName = Object.freeze({
  name: 'WebFetch',
  toExternal: (args: Readonly<Record<string, unknown>>) => {
    const host = String(args.host);
    const authority = host.includes(':') ? `[${host}]` : host;
    return { url: `https://${authority}:${String(args.port)}/`, prompt: `a sandboxed command connects to ${host}:${String(args.port)}` };
  },
  fromExternal: (input: Readonly<Record<string, unknown>>) => {
    const url = URL.canParse(String(input.url)) ? new URL(String(input.url)) : undefined;
    return url === undefined ? {} : { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 443) };
  },
});

/** The network tap's stage: after every policy (permissions run at 100 by default, hook bridges at 0). */
const networkTapStage = 1_000_000;

/** Asks the pipeline about a destination no list decided. */
export interface NetworkAccessAsker {
  ask(ctx: ToolContext, id: string, destination: EgressDestination, protocol: EgressProtocol): Promise<EgressDecision>;
}

/**
 * Registers the tool through which a sandboxed command's new destination
 * becomes a call of its own (`<bash name>_network`), run as a sub-call of the
 * bash call: permission taps and grants see it like any call (as a
 * `WebFetch` of the host), and a last tap of this plugin makes it `ask`
 * where no tap decided, so the host's approval provider is asked, with the
 * bash call's id in the arguments and the reason. The body opens nothing: a model that calls it
 * learns only what the user answered.
 */
export function registerNetworkAccess(host: Host, pluginName: string, bashName: string): NetworkAccessAsker {
  const name = `${bashName}_network`;
  // What allowed each sub-call (a tap's grant or the user), read back by the asker.
  const allowedBy = new Map<string, GuardInput['allowedBy']>();
  host.tools.register(
    defineTool({
      name,
      description: `Asked by the ${bashName} sandbox when a command opens a network destination no list allows or denies; calling it opens nothing.`,
      input: networkAccessInput,
      // Only the sandbox asks it, as a sub-call of the bash call: the model never sees it.
      internal: true,
      external: { claude: networkAccessClaudeName },
      parallel: true,
      execute: (args) => ({ allowed: true, host: args.host, port: args.port }),
    }),
  );
  // Last, and only where no tap decided: a rule, a remembered grant or a hook decides a destination,
  // and what none of them decided goes to the person; the host's default never opens the network.
  const tap: PreExecuteTap = (state, info) => {
    if (info.tool.name !== name || state.decidedBy !== undefined) return undefined;
    const args = state.args as z.output<typeof networkAccessInput>;
    return {
      decision: 'ask',
      reason: `the command of ${bashName} call ${args.call} connects to ${args.host}:${args.port} (${args.protocol})`,
    };
  };
  host.hooks.preExecute.tap({ name: `${pluginName}/network`, stage: networkTapStage }, tap);
  host.guards.register({
    id: `${pluginName}/network`,
    check: (input: GuardInput): GuardVerdict => {
      if (input.tool.name === name) allowedBy.set(input.call.id, input.allowedBy);
      return 'abstain';
    },
  });
  return {
    async ask(ctx, id, destination, protocol) {
      const outcome = await ctx.tools.execute({
        id,
        name,
        args: { host: destination.host, port: destination.port, protocol, call: ctx.call.id },
      });
      const by = allowedBy.get(id);
      allowedBy.delete(id);
      if (outcome.status === 'ok') return { decision: 'allow', by: by ?? 'approval' };
      const reason = outcome.status === 'error' ? outcome.error.message : outcome.reason;
      return { decision: 'deny', by: outcome.by ?? outcome.stage, reason };
    },
  };
}
