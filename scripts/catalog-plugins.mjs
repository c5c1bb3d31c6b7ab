// The plugins whose tools and event types the catalog covers, each configured as an
// integrator would, inside a scratch directory so nothing depends on this machine.
import { toolBash } from '@deepseek-ai/dsh-tool-bash';
import { toolFs } from '@deepseek-ai/dsh-tool-fs';

export async function catalogPlugins(scratch) {
  return [toolFs({ roots: [scratch], cwd: scratch, search: 'builtin' }), toolBash({ cwd: scratch, sandbox: { provider: 'none' } })];
}
