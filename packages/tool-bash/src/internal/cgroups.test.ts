// Releasing a call's cgroup must not leak it, even when something of the call is still inside
// (issue 27 item 2): the member is real (a sleep that joined the cgroup), not a mock.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CallMarkers } from './call-markers.js';
import { type CallCgroup, CgroupFactory, cgroupName } from './cgroups.js';

const factory = CgroupFactory.detect();
const markers = new CallMarkers();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts a `sleep` that joins every cgroup of `cgroup` first, and resolves once it is a member. */
async function memberOf(cgroup: CallCgroup): Promise<ChildProcess> {
  const joins = cgroup.procsFiles.map((_, i) => `echo 0 >"$${i + 1}"`).join(' && ');
  const child = spawn('/bin/sh', ['-c', `${joins} && exec sleep 300`, 'sh', ...cgroup.procsFiles], { stdio: 'ignore' });
  children.push(child);
  // The bound only ends a hang.
  for (const deadline = Date.now() + 30_000; !cgroup.members().includes(child.pid ?? -1); ) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the sleep did not join the cgroup');
    await new Promise((r) => setTimeout(r, 10));
  }
  return child;
}

const kinds = [
  // Root on a host whose v2 hierarchy lacks `pids`: the limit lands in the v1 `pids` hierarchy (this machine's case).
  { name: 'a limits-only cgroup (pids.max, v1 or v2)', kill: false, usable: factory?.canLimit('processes') === true },
  { name: 'a killable cgroup v2', kill: true, usable: factory?.killable === true },
];

describe.skipIf(factory === undefined)('releasing a call cgroup', () => {
  for (const kind of kinds) {
    it.skipIf(!kind.usable)(`removes ${kind.name} that still has a member, killing the member`, async () => {
      const cgroup = (factory as CgroupFactory).create(
        cgroupName(markers.next()),
        { processes: 64, memoryBytes: undefined, cpuAsOneProcess: false },
        kind.kill,
      );
      expect(cgroup).toBeDefined();
      const call = cgroup as CallCgroup;
      const member = await memberOf(call);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => member.once('exit', (_code, signal) => resolve(signal)));
      expect(await call.release()).toBe(true);
      expect(call.procsFiles.map((file) => dirname(file)).filter((dir) => existsSync(dir))).toEqual([]);
      expect(await exited).toBe('SIGKILL');
    });
  }

  it.skipIf(!kinds[0]?.usable)('removes an empty cgroup at once', async () => {
    const call = (factory as CgroupFactory).create(
      cgroupName(markers.next()),
      { processes: 64, memoryBytes: undefined, cpuAsOneProcess: false },
      false,
    ) as CallCgroup;
    expect(await call.release()).toBe(true);
    expect(call.procsFiles.filter((file) => existsSync(dirname(file)))).toEqual([]);
  });
});
