// An unsandboxed call gets limits.processes too: before, where this process's cgroup v2 lacked the
// `pids` controller (a hybrid host, as this machine), the limit went only to sandboxed calls and an
// unsandboxed fork bomb had none. The limit is read from inside the call: its own cgroups.
import { describe, expect, it } from 'vitest';
import { bashHosts, okOutput, trackProcesses, workspace } from './fixtures/support.js';
import { CgroupFactory } from './internal/cgroups.js';

const limitable = CgroupFactory.detect()?.canLimit('processes') === true;
const ws = workspace();
const { env } = trackProcesses();

describe.skipIf(!limitable)('an unsandboxed call', () => {
  it("runs in a pids cgroup of its own whose pids.max is limits.processes, and says so in the result's limits", async () => {
    const t = await bashHosts({ cwd: ws, sandbox: { provider: 'none' }, limits: { processes: 64 } }, env)();
    // The pids cgroup of the shell, v1 (a line naming `pids`) or v2 (`0::`), and its pids.max where this host mounts it.
    const command = [
      'line=$(grep -E "^[0-9]+:([^:]*,)?pids(,[^:]*)?:" /proc/self/cgroup || grep "^0::" /proc/self/cgroup)',
      'path=$(printf %s "$line" | cut -d: -f3-)',
      'for root in /sys/fs/cgroup/pids /sys/fs/cgroup/unified /sys/fs/cgroup; do [ -r "$root$path/pids.max" ] && { echo "$path"; cat "$root$path/pids.max"; break; }; done',
    ].join('\n');
    const out = okOutput(await t.call('bash', { command }));
    const [path, max] = out.stdout.trim().split('\n');
    expect(path).toMatch(/\/dsh-bash-[^/]+$/);
    expect(max).toBe('64');
    expect(out.limits?.processes).toBe(64);
  });
});
