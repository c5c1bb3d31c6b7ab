/**
 * The seccomp filter handed to `bwrap --seccomp FD`: a classic BPF program
 * (`struct sock_filter[]`) that checks the architecture, then the system
 * call and, for `socket`, its address family. Denied calls fail with EPERM;
 * a call from another architecture (32-bit or x32 entry points) kills the
 * process, since its numbers mean something else.
 */

interface SyscallTable {
  /** `AUDIT_ARCH_*` as `seccomp_data.arch` reports it. */
  readonly audit: number;
  /** System calls numbered from this value are another ABI (x32 on x86-64). */
  readonly foreignFrom?: number;
  readonly socket: number;
  /** Denied outright, with EPERM. */
  readonly denied: Readonly<Record<string, number>>;
}

// Numbers 425 and up are shared by every architecture (the unified table).
const sharedDenied = {
  io_uring_setup: 425, // io_uring can open and connect sockets without socket()
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
};

// The architectures whose system call numbers the filter knows, by `process.arch` name.
const tables: Readonly<Record<'x64' | 'arm64', SyscallTable>> = {
  x64: {
    audit: 0xc000003e,
    foreignFrom: 0x40000000,
    socket: 41,
    denied: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      add_key: 248,
      request_key: 249,
      keyctl: 250,
      bpf: 321,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      unshare: 272,
      setns: 308,
      perf_event_open: 298,
      userfaultfd: 323,
      ...sharedDenied,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    denied: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      add_key: 217,
      request_key: 218,
      keyctl: 219,
      bpf: 280,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      unshare: 97,
      setns: 268,
      perf_event_open: 241,
      userfaultfd: 282,
      ...sharedDenied,
    },
  },
};

/** The system calls the filter always denies (EPERM), by name. */
export const seccompDeniedSyscalls: readonly string[] = Object.freeze(Object.keys(tables.x64.denied));

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const NETLINK_ROUTE = 0;
const EPERM = 1;

// BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
// Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6] (little-endian 64-bit words).
const NR = 0;
const ARCH = 4;
const argLow = (i: number): number => 16 + 8 * i;

type Label = 'allow' | 'deny' | 'kill' | 'socket' | 'netlink' | 'next';
type Instruction =
  | { readonly op: 'load'; readonly offset: number }
  | { readonly op: 'jeq' | 'jge'; readonly value: number; readonly ifTrue: Label; readonly ifFalse: Label }
  | { readonly op: 'ret'; readonly value: number }
  | { readonly op: 'label'; readonly name: Exclude<Label, 'next'> };

/**
 * The filter for `arch` as bytes, ready for `bwrap --seccomp`. Without
 * `network` (no network, or the network through the egress proxy, whose
 * relay runs outside the filter), `socket()` is allowed only for AF_INET/AF_INET6 (inside the
 * sandbox's own, empty network namespace) and routing netlink (glibc's
 * address lookups use it); AF_UNIX is denied, so path-based sockets on the
 * host (Docker, D-Bus) cannot be reached. With `network`, AF_UNIX is allowed
 * too. Every other family (packet, vsock, …) is denied either way.
 * `socketpair` stays allowed: its two ends name nothing outside the process
 * tree. `undefined` for an architecture without a table.
 */
export function seccompFilter(arch: string, network: boolean): Buffer | undefined {
  const table = (tables as Readonly<Record<string, SyscallTable>>)[arch];
  if (table === undefined) return undefined;
  const program: Instruction[] = [
    { op: 'load', offset: ARCH },
    { op: 'jeq', value: table.audit, ifTrue: 'next', ifFalse: 'kill' },
    { op: 'load', offset: NR },
  ];
  if (table.foreignFrom !== undefined) program.push({ op: 'jge', value: table.foreignFrom, ifTrue: 'kill', ifFalse: 'next' });
  for (const nr of Object.values(table.denied)) program.push({ op: 'jeq', value: nr, ifTrue: 'deny', ifFalse: 'next' });
  program.push({ op: 'jeq', value: table.socket, ifTrue: 'socket', ifFalse: 'allow' });
  program.push(
    { op: 'label', name: 'socket' },
    { op: 'load', offset: argLow(0) },
    { op: 'jeq', value: AF_INET, ifTrue: 'allow', ifFalse: 'next' },
    { op: 'jeq', value: AF_INET6, ifTrue: 'allow', ifFalse: 'next' },
  );
  if (network) program.push({ op: 'jeq', value: AF_UNIX, ifTrue: 'allow', ifFalse: 'next' });
  program.push(
    { op: 'jeq', value: AF_NETLINK, ifTrue: 'netlink', ifFalse: 'deny' },
    { op: 'label', name: 'netlink' },
    { op: 'load', offset: argLow(2) },
    { op: 'jeq', value: NETLINK_ROUTE, ifTrue: 'allow', ifFalse: 'deny' },
    { op: 'label', name: 'allow' },
    { op: 'ret', value: RET_ALLOW },
    { op: 'label', name: 'deny' },
    { op: 'ret', value: RET_ERRNO | EPERM },
    { op: 'label', name: 'kill' },
    { op: 'ret', value: RET_KILL_PROCESS },
  );
  return assemble(program);
}

/** Resolves labels to relative jumps and encodes each instruction as 8 bytes (`code`, `jt`, `jf`, `k`). */
function assemble(program: readonly Instruction[]): Buffer {
  const at = new Map<string, number>();
  const code = program.filter((i) => {
    if (i.op !== 'label') return true;
    at.set(i.name, [...program.slice(0, program.indexOf(i))].filter((p) => p.op !== 'label').length);
    return false;
  });
  const out = Buffer.alloc(code.length * 8);
  code.forEach((instruction, index) => {
    const offset = (label: Label): number => {
      if (label === 'next') return 0;
      const jump = (at.get(label) ?? Number.NaN) - index - 1;
      // Jump offsets are 8-bit and forward only.
      if (!(jump >= 0 && jump <= 255)) throw new Error(`seccomp filter: cannot jump to ${label} from ${index}`);
      return jump;
    };
    const word = (op: number, jt: number, jf: number, k: number): void => {
      out.writeUInt16LE(op, index * 8);
      out.writeUInt8(jt, index * 8 + 2);
      out.writeUInt8(jf, index * 8 + 3);
      out.writeUInt32LE(k >>> 0, index * 8 + 4);
    };
    switch (instruction.op) {
      case 'load':
        word(LD_W_ABS, 0, 0, instruction.offset);
        break;
      case 'ret':
        word(RET_K, 0, 0, instruction.value);
        break;
      case 'jeq':
      case 'jge':
        word(instruction.op === 'jeq' ? JEQ_K : JGE_K, offset(instruction.ifTrue), offset(instruction.ifFalse), instruction.value);
        break;
      default:
        break;
    }
  });
  return out;
}
