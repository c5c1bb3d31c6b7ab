import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspace } from '../fixtures/support.js';
import { bwrapArgs } from './bwrap.js';
import { seccompFilter } from './seccomp.js';

/** Decodes `struct sock_filter[]` back into `{ code, jt, jf, k }`. */
function decode(filter: Buffer): { code: number; jt: number; jf: number; k: number }[] {
  const out = [];
  for (let i = 0; i < filter.length; i += 8)
    out.push({ code: filter.readUInt16LE(i), jt: filter.readUInt8(i + 2), jf: filter.readUInt8(i + 3), k: filter.readUInt32LE(i + 4) });
  return out;
}

describe('the seccomp filter', () => {
  it('checks the architecture first and kills a foreign one', () => {
    for (const [arch, audit] of [
      ['x64', 0xc000003e],
      ['arm64', 0xc00000b7],
    ] as const) {
      const program = decode(seccompFilter(arch, false) as Buffer);
      expect(program[0]).toEqual({ code: 0x20, jt: 0, jf: 0, k: 4 }); // load seccomp_data.arch
      expect(program[1]).toMatchObject({ code: 0x15, k: audit, jt: 0 });
      const kill = program[2 + (program[1]?.jf ?? 0)];
      expect(kill).toEqual({ code: 0x06, jt: 0, jf: 0, k: 0x80000000 });
    }
  });

  it('differs with the network only in allowing AF_UNIX', () => {
    const off = decode(seccompFilter('x64', false) as Buffer);
    const on = decode(seccompFilter('x64', true) as Buffer);
    expect(on.length).toBe(off.length + 1);
    expect(on.some((i) => i.code === 0x15 && i.k === 1)).toBe(true);
    expect(off.some((i) => i.code === 0x15 && i.k === 1)).toBe(false);
  });

  it('jumps only forward and within the program, and ends on return instructions', () => {
    const program = decode(seccompFilter('arm64', true) as Buffer);
    program.forEach((instruction, index) => {
      if ((instruction.code & 0x07) === 0x05) {
        expect(index + 1 + instruction.jt).toBeLessThan(program.length);
        expect(index + 1 + instruction.jf).toBeLessThan(program.length);
      }
    });
    expect(program.at(-1)?.code).toBe(0x06);
  });

  it('has no table for other architectures', () => {
    expect(seccompFilter('ia32', false)).toBeUndefined();
  });
});

describe('deny-read masks in the bwrap arguments', () => {
  const dir = workspace();
  it('mask existing paths only, by real path, after the binds (or before, when they hold a root)', () => {
    mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
    writeFileSync(join(dir, 'home', '.netrc'), 'x');
    symlinkSync(join(dir, 'home', '.netrc'), join(dir, 'home', '.npmrc'));
    const root = join(dir, 'home', '.ssh', 'project');
    mkdirSync(root);
    const args = bwrapArgs({
      writableRoots: [root],
      readOnlyPaths: [],
      extraReadablePaths: [],
      network: false,
      cwd: root,
      denyReadPaths: [join(dir, 'home', '.ssh'), join(dir, 'home', '.netrc'), join(dir, 'home', '.npmrc'), join(dir, 'missing')],
    });
    const at = (flag: string, value: string): number => args.findIndex((a, i) => a === flag && args[i + 1] === value);
    expect(at('--tmpfs', join(dir, 'home', '.ssh'))).toBeLessThan(at('--bind', root));
    expect(args.slice(at('--tmpfs', join(dir, 'home', '.ssh')), at('--tmpfs', join(dir, 'home', '.ssh')) + 4)).toEqual([
      '--tmpfs',
      join(dir, 'home', '.ssh'),
      '--remount-ro',
      join(dir, 'home', '.ssh'),
    ]);
    expect(args.filter((a) => a === join(dir, 'home', '.netrc'))).toHaveLength(1);
    // PID 1's memory is covered with /dev/null too; the mask of the file is the one aimed at it.
    const netrc = args.findIndex((a, i) => a === '--ro-bind' && args[i + 1] === '/dev/null' && args[i + 2] === join(dir, 'home', '.netrc'));
    expect(netrc).toBeGreaterThan(at('--bind', root));
    expect(args.join(' ')).not.toContain('missing');
    expect(args.join(' ')).not.toContain('.npmrc');
  });
});
