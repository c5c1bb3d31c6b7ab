// The plugins whose tools and event types the catalog covers, each configured as an
// integrator would, inside a scratch directory so nothing depends on this machine.
import { agent } from '@deepseek-ai/dsh-agent';
import { codeMode } from '@deepseek-ai/dsh-code-mode';
import { hooksBridge } from '@deepseek-ai/dsh-hooks-bridge';
import { mcp } from '@deepseek-ai/dsh-mcp';
import { otel } from '@deepseek-ai/dsh-otel';
import { permissions } from '@deepseek-ai/dsh-permissions';
import { retryPolicy } from '@deepseek-ai/dsh-retry-policy';
import { timeoutPolicy } from '@deepseek-ai/dsh-timeout-policy';
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';
import { toolSkill } from '@deepseek-ai/dsh-tool-skill';
import { toolSubagent } from '@deepseek-ai/dsh-tool-subagent';
import { toolTodo } from '@deepseek-ai/dsh-tool-todo';
import { searxngProvider, toolWeb } from '@deepseek-ai/dsh-tool-web';

export async function catalogPlugins(scratch) {
  const dirs = { projectDir: scratch, homeDir: scratch };
  return [
    toolFs({ roots: [scratch], cwd: scratch, search: 'builtin' }),
    toolBash({ cwd: scratch, sandbox: { provider: 'none' } }),
    toolTodo(),
    // A search provider that is never called: web_search is registered only with one.
    toolWeb({ searchProvider: searxngProvider({ baseUrl: 'http://127.0.0.1:9/' }) }),
    toolSkill(dirs),
    agent(),
    // A model that is never asked: the catalog only needs the task tool's schema and events.
    toolSubagent({ model: async () => ({ text: '', calls: [], stop: 'end' }), ...dirs }),
    timeoutPolicy(),
    retryPolicy(),
    otel(),
    hooksBridge(dirs),
    permissions({ ...dirs, cwd: scratch }),
    // No servers: the catalog only needs the plugin's event types.
    mcp(),
    // Last: the program may call the tools registered before it.
    codeMode(),
  ];
}
