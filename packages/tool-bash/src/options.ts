import { DshError, z } from '@deepseek-ai/dsh-core';
import { defaultEnvAllowList } from './environment.js';
import { BashErrorCode } from './errors.js';
import { defaultDenyRead } from './sandbox/masks.js';
import { networkPolicySchema } from './sandbox/network-policy.js';
import type { SandboxProvider } from './sandbox/provider.js';

/** The longest delay `setTimeout` honours; longer values would fire at once. */
const maxTimerMs = 2_147_483_647;
const ms = z.number().int().positive().max(maxTimerMs);
const noNul = (what: string) => z.string().refine((s) => !s.includes('\0'), `${what} must not contain NUL bytes`);
const path = noNul('a path').pipe(z.string().min(1));

const providerSchema = z.union([
  z.enum(['bwrap', 'none']),
  z.custom<SandboxProvider>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as SandboxProvider).name === 'string' &&
      typeof (v as SandboxProvider).wrap === 'function' &&
      typeof (v as SandboxProvider).probe === 'function' &&
      typeof (v as SandboxProvider).containsProcessTree === 'boolean',
    'must be "bwrap", "none" or a SandboxProvider { name, containsProcessTree, probe, wrap }',
  ),
]);

/** The zod schema of `toolBash` options. */
export const toolBashOptionsSchema = z
  .strictObject({
    /** The tool's name, as the model sees it. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .default('bash'),
    /** Where the first command starts: the host's working directory (`host.anchors.cwd`) by default. Must exist. */
    cwd: path.optional(),
    /** The workspace roots: writable inside the sandbox, and where a `cd` may lead. `[cwd]` by default. */
    roots: z.array(path).min(1).optional(),
    /** Timeout of a command that gives none (ms). */
    defaultTimeoutMs: ms.default(120_000),
    /** The longest timeout a command may ask for; larger requests are clamped (ms). */
    maxTimeoutMs: ms.default(600_000),
    /** Between SIGTERM and SIGKILL when a command is stopped (ms); keep it below the host's `abortGraceMs`. */
    killGraceMs: z.number().int().nonnegative().max(maxTimerMs).default(1_000),
    /** Characters kept of each view of the output; above it, head and tail with a marker, and the full output in a file. */
    maxOutputChars: z.number().int().min(100).default(30_000),
    /** Bytes of output after which the command is killed: the hard cap. */
    maxOutputBytes: z
      .number()
      .int()
      .positive()
      .default(50 * 1024 * 1024),
    /** Directory for full-output files; a fresh private directory under the OS temp dir by default. */
    outputDir: path.optional(),
    /** Live-output batching: at most one progress update per stream per interval (ms)… */
    progressIntervalMs: ms.default(50),
    /** …of at most this many characters (the newest). */
    progressMaxChars: z.number().int().positive().default(8_192),
    /** The shell to run; `bash` on `PATH` by default. */
    shell: path.default('bash'),
    /** After a command exits, look for processes that left its group but kept its marker, and kill them. */
    sweepEscapees: z.boolean().default(true),
    /** Run each call in its own cgroup where the host lets this process create one (v2 for the kill, v1 or v2 for limits). */
    cgroups: z.boolean().default(true),
    limits: z
      .strictObject({
        /** The most processes (tasks, threads included) a call may run at once; `null` for none. */
        processes: z.number().int().min(8).nullable().default(4096),
        /** The most memory a sandboxed call may use (cgroup only); none by default. */
        memoryBytes: z
          .number()
          .int()
          .min(16 * 1024 * 1024)
          .optional(),
        /**
         * The call's processes together get the CPU share of one ordinary process when the CPU is
         * contended (a cgroup of their own in the `cpu` controller), so a fork bomb or a wide build
         * cannot starve the host; `false` lets each compete on its own.
         */
        cpuAsOneProcess: z.boolean().default(true),
      })
      .default({ processes: 4096, cpuAsOneProcess: true }),
    env: z
      .strictObject({
        /** Host variables passed through (a trailing `*` matches a prefix); replaces the default list. */
        allow: z.array(z.string().min(1)).optional(),
        /** Fixed variables set for every command. */
        set: z
          .record(z.string(), noNul('a value'))
          .superRefine((set, ctx) => {
            for (const name of Object.keys(set)) {
              if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
                ctx.addIssue({ code: 'custom', path: [name], message: 'must be a variable name' });
            }
          })
          .default({}),
      })
      .default({ set: {} }),
    sandbox: z
      .strictObject({
        /** `bwrap` (default), `none`, or your own provider. */
        provider: providerSchema.default('bwrap'),
        /** What to do when the provider's probe fails: refuse every call, ask the user each time, or run unsandboxed (logged). */
        fallback: z.enum(['deny', 'ask', 'none']).default('deny'),
        /** `false`: no network; `true`: the host's network; an object: the network through the egress proxy, each new destination decided. */
        network: z.union([z.boolean(), networkPolicySchema]).default(false),
        /** Paths inside the roots kept read-only (besides `.git` unless `gitWritable`); relative ones resolve against each root. */
        readOnlyPaths: z.array(path).default([]),
        /** Let sandboxed commands write `.git` (commits, branch changes). */
        gitWritable: z.boolean().default(false),
        /**
         * Keep sandbox-runtime's mandatory read-only set in every root: shell start-up files, `.gitconfig`,
         * `.gitmodules`, `.mcp.json`, `.vscode`, `.idea`, `.claude/{commands,agents,settings*.json}`, `.git/hooks`;
         * a missing one cannot be created either.
         */
        protectAgentFiles: z.boolean().default(true),
        /** The `bwrap` executable. */
        bwrapPath: path.default('bwrap'),
        /** Paths hidden from sandboxed commands (`~/` is `home`); replaces the default list. */
        denyRead: z.array(path).default([...defaultDenyRead]),
        /** The directory `~` stands for in `denyRead`: the host's home directory (`host.anchors.homeDir`) by default. */
        home: path.optional(),
      })
      .default({
        provider: 'bwrap',
        fallback: 'deny',
        network: false,
        readOnlyPaths: [],
        gitWritable: false,
        protectAgentFiles: true,
        bwrapPath: 'bwrap',
        denyRead: [...defaultDenyRead],
      }),
  })
  .refine((o) => o.defaultTimeoutMs <= o.maxTimeoutMs, { message: 'must not exceed maxTimeoutMs', path: ['defaultTimeoutMs'] });

/** Options of `toolBash`, as an integrator writes them: every field is optional. */
export type ToolBashOptions = z.input<typeof toolBashOptionsSchema>;

/** Options with every default filled in. */
export type ResolvedToolBashOptions = z.output<typeof toolBashOptionsSchema>;

/** Validates options, naming the field on failure (`INVALID_OPTIONS`). */
export function parseToolBashOptions(options: unknown): ResolvedToolBashOptions {
  const parsed = toolBashOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.map(String).join('.') : 'options';
    throw new DshError(BashErrorCode.INVALID_OPTIONS, `toolBash: ${field}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The environment allow-list in effect. */
export function envAllowList(options: ResolvedToolBashOptions): readonly string[] {
  return options.env.allow ?? defaultEnvAllowList;
}
