import { definePlugin, type Host, type Plugin } from '@deepseek-ai/dsh-core';
import { DomainRules } from './domain-rules.js';
import { tapDomainRules } from './domain-tap.js';
import { parseToolWebOptions, type ToolWebOptions } from './options.js';
import { systemResolver } from './resolver.js';
import { TargetPolicy } from './target-policy.js';
import { version } from './version.js';
import { webFetchTool } from './web-fetch-tool.js';
import { webSearchTool } from './web-search-tool.js';

/** The plugin's name, as `host.plugins()` lists it. */
export const toolWebPluginName = 'tool-web';

/**
 * The web tools as a plugin: `web_fetch` always, `web_search` only when a
 * `searchProvider` is configured. Options are validated here
 * (`INVALID_OPTIONS` naming the field).
 */
export function toolWeb(options: ToolWebOptions = {}): Plugin {
  const o = parseToolWebOptions(options);
  const userAgent = o.userAgent ?? `dsh-tool-web/${version} (+https://github.com/deepseek-ai/dsh)`;
  return definePlugin({
    name: toolWebPluginName,
    version,
    register(host: Host) {
      const domains = new DomainRules(host.sandboxPolicy);
      const policy = new TargetPolicy({ allow: o.allowList, ports: o.ports, resolver: o.resolver ?? systemResolver, domains });
      const fetchTool = webFetchTool({ options: o, policy, userAgent });
      host.tools.register(fetchTool);
      tapDomainRules(host, fetchTool.name, domains);
      if (o.searchProvider !== undefined) host.tools.register(webSearchTool(o.searchProvider, o.maxSearchResults, o.timeoutMs));
    },
  });
}
