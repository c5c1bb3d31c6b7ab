import { definePlugin, type Plugin } from '@deepseek-ai/dsh-core';
import { defineAgentEvents } from './events.js';
import { version } from './version.js';

/** The plugin's name on the host. */
export const agentPluginName = 'agent';

/**
 * Registers the `agent/turn` event type on a host up front, so catalogs and
 * log readers know it before the first run. Optional: `runAgent` defines the
 * type itself on first use.
 */
export function agent(): Plugin {
  return definePlugin({ name: agentPluginName, version, register: (host) => defineAgentEvents(host) });
}
