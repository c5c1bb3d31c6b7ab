// A host killed outright (SIGKILL, OOM) cannot remove its calls' cgroups: the next host that starts
// removes the empty ones whose owner (named in the cgroup: pid namespace and pid) is gone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CgroupFactory, cgroupName } from './internal/cgroups.js';

const factory = CgroupFactory.detect();
const made: string[] = [];
afterAll(() => {
  for (const dir of made.reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // Swept, as the test wants, or already gone.
    }
  }
});

describe.runIf(factory !== undefined)('call cgroups left by a host that is gone', () => {
  it('are removed when a host starts, unless populated, of a live owner, or of another pid namespace', async () => {
    const probe = factory?.create(cgroupName('sweepprobe'), { processes: 64, memoryBytes: undefined, cpuAsOneProcess: false }, true);
    if (probe === undefined) throw new Error('a cgroup can be made here');
    const parents = probe.procsFiles.map((file) => dirname(dirname(file)));
    expect(await probe.release()).toBe(true);
    // A name of this host, minus the marker, says how names look.
    expect(cgroupName('m1')).toMatch(/^dsh-bash-\d+-\d+-m1$/);
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] as string;
    const dead = spawnSync('true').pid as number;
    const live = spawn('sleep', ['60'], { stdio: 'ignore' });
    const gone = new Promise((resolve) => live.once('exit', resolve));
    try {
      const cases = {
        abandoned: `dsh-bash-${namespace}-${dead}-t1`,
        liveOwner: `dsh-bash-${namespace}-${live.pid}-t2`,
        otherNamespace: `dsh-bash-1-${dead}-t3`,
        populated: `dsh-bash-${namespace}-${dead}-t4`,
      };
      for (const parent of parents) {
        for (const name of Object.values(cases)) {
          mkdirSync(join(parent, name));
          made.push(join(parent, name));
        }
      }
      // A process of a dead owner's cgroup (a call's escapee, say) keeps it: rmdir refuses a populated cgroup.
      writeFileSync(join(parents[0] as string, cases.populated, 'cgroup.procs'), String(live.pid));
      expect(CgroupFactory.detect()).toBeDefined();
      for (const parent of parents) {
        expect(existsSync(join(parent, cases.abandoned))).toBe(false);
        expect(existsSync(join(parent, cases.liveOwner))).toBe(true);
        expect(existsSync(join(parent, cases.otherNamespace))).toBe(true);
      }
      expect(existsSync(join(parents[0] as string, cases.populated))).toBe(true);
    } finally {
      live.kill('SIGKILL');
      await gone;
    }
  });
});
