import { defineTool, type GuardInput, type GuardVerdict, type Host, type PreExecuteTap, type ToolContext, z } from '@deepseek-ai/dsh-core';
import type { EgressDecision, EgressDestination, EgressProtocol } from '@deepseek-ai/dsh-egress';

/** The arguments of a network-access request: the destination, and the bash call whose command opened it. */
export const networkAccessInput = z.strictObject({
  host: z.string(),
  port: z.number().int().min(1).max(65_535),
  protocol: z.enum(['http-connect', 'http-forward', 'socks5']),
  /** The id of the bash call whose command asks. */
  call: z.string(),
});

/** Asks the pipeline about a destination no list decided. */
export interface NetworkAccessAsker {
  ask(ctx: ToolContext, id: string, destination: EgressDestination, protocol: EgressProtocol): Promise<EgressDecision>;
}

/**
 * Registers the tool through which a sandboxed command's new destination
 * becomes a call of its own (`<bash name>_network`), run as a sub-call of the
 * bash call: permission taps and grants see it like any call, and a tap of
 * this plugin leaves it at `ask`, so unless a tap allows or denies it the
 * host's approval provider is asked, with the bash call's id in the
 * arguments and the reason. The body opens nothing: a model that calls it
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
      parallel: true,
      execute: (args) => ({ allowed: true, host: args.host, port: args.port }),
    }),
  );
  const tap: PreExecuteTap = (state, info) => {
    if (info.tool.name !== name) return undefined;
    const args = state.args as z.output<typeof networkAccessInput>;
    return {
      decision: 'ask',
      reason: `the command of ${bashName} call ${args.call} connects to ${args.host}:${args.port} (${args.protocol})`,
    };
  };
  host.hooks.preExecute.tap(`${pluginName}/network`, tap);
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
