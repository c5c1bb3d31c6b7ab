import { homedir } from 'node:os';
import path from 'node:path';

/**
 * Where a session's relative paths hang from: the working directory, the
 * project directory and the home directory, all absolute. The host owns them
 * (`host.anchors`); plugins take them by default, and an option of a plugin
 * that names one of them overrides it for that plugin only.
 */
export interface SessionAnchors {
  /** The working directory: a relative path argument resolves against it. */
  readonly cwd: string;
  /** The project root (where `.claude/` settings live): `cwd` unless set. */
  readonly projectDir: string;
  /** What `~` stands for. */
  readonly homeDir: string;
}

/** The anchors a host is created with, each absolute or relative to the process's working directory. */
export interface AnchorOptions {
  readonly cwd?: string;
  readonly projectDir?: string;
  readonly homeDir?: string;
}

/** Fills in anchors: `cwd` is `process.cwd()`, `projectDir` is `cwd`, `homeDir` is the user's home. Frozen. */
export function sessionAnchors(options: AnchorOptions = {}): SessionAnchors {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  return Object.freeze({
    cwd,
    projectDir: path.resolve(cwd, options.projectDir ?? cwd),
    homeDir: path.resolve(options.homeDir ?? homedir()),
  });
}

/**
 * A path argument as an absolute path, lexically: `~` and `~/…` from
 * `homeDir`, anything relative from `cwd` (or `base`, when the tool has its
 * own working directory), `.` and `..` folded. Symlinks are the tool's to
 * follow: this does no I/O.
 */
export function anchorPath(input: string, anchors: Pick<SessionAnchors, 'cwd' | 'homeDir'>, base: string = anchors.cwd): string {
  if (input === '~') return anchors.homeDir;
  if (input.startsWith('~/')) return path.resolve(anchors.homeDir, input.slice(2));
  return path.resolve(base, input);
}
