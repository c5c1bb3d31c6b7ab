import { DshError, ToolError } from '@deepseek-ai/dsh-core';

/**
 * Stable error codes of tool-fs. Each is the `error.code` of an outcome and
 * is listed with its meaning in the package README.
 */
export const FsErrorCode = {
  // Confinement: every one is its own refusal.
  PATH_NUL_BYTE: 'FS_PATH_NUL_BYTE',
  PATH_TRAVERSAL: 'FS_PATH_TRAVERSAL',
  PATH_OUTSIDE_ROOTS: 'FS_PATH_OUTSIDE_ROOTS',
  PATH_SIBLING_PREFIX: 'FS_PATH_SIBLING_PREFIX',
  SYMLINK_ESCAPE: 'FS_SYMLINK_ESCAPE',
  PSEUDO_FILESYSTEM: 'FS_PSEUDO_FILESYSTEM',
  SPECIAL_FILE: 'FS_SPECIAL_FILE',
  READ_ONLY_ROOT: 'FS_READ_ONLY_ROOT',
  PATH_CHANGED: 'FS_PATH_CHANGED',
  SYMLINK_LOOP: 'FS_SYMLINK_LOOP',
  PATH_TOO_LONG: 'FS_PATH_TOO_LONG',
  HARD_LINK: 'FS_HARD_LINK',
  UNSUPPORTED_PLATFORM: 'FS_UNSUPPORTED_PLATFORM',
  // What is (or is not) at the path.
  NOT_FOUND: 'FS_NOT_FOUND',
  IS_DIRECTORY: 'FS_IS_DIRECTORY',
  NOT_A_DIRECTORY: 'FS_NOT_A_DIRECTORY',
  BINARY_FILE: 'FS_BINARY_FILE',
  NOT_UTF8: 'FS_NOT_UTF8',
  FILE_TOO_LARGE: 'FS_FILE_TOO_LARGE',
  // The fs gate.
  NOT_READ: 'FS_NOT_READ',
  CHANGED_SINCE_READ: 'FS_CHANGED_SINCE_READ',
  PARTIAL_READ: 'FS_PARTIAL_READ',
  APPEARED_SINCE_READ: 'FS_APPEARED_SINCE_READ',
  GATE_VETOED: 'FS_GATE_VETOED',
  // Edits.
  NO_MATCH: 'FS_NO_MATCH',
  AMBIGUOUS_MATCH: 'FS_AMBIGUOUS_MATCH',
  NO_CHANGE: 'FS_NO_CHANGE',
  EMPTY_OLD_STRING: 'FS_EMPTY_OLD_STRING',
  // Search.
  INVALID_REGEX: 'FS_INVALID_REGEX',
  INVALID_GLOB: 'FS_INVALID_GLOB',
  // The operating system said no.
  PERMISSION_DENIED: 'FS_PERMISSION_DENIED',
  NO_SPACE: 'FS_NO_SPACE',
  READ_ONLY_FILESYSTEM: 'FS_READ_ONLY_FILESYSTEM',
  IO_ERROR: 'FS_IO_ERROR',
} as const;

/** One of tool-fs's stable error codes. */
export type FsErrorCode = (typeof FsErrorCode)[keyof typeof FsErrorCode];

/** Builds the `ToolError` a tool body throws, with the path in its data. */
export function fsError(code: FsErrorCode, message: string, data?: Readonly<Record<string, unknown>>): ToolError {
  return new ToolError(code, message, data === undefined ? undefined : { data });
}

const osCodes: Readonly<Record<string, FsErrorCode>> = {
  ENOENT: FsErrorCode.NOT_FOUND,
  EISDIR: FsErrorCode.IS_DIRECTORY,
  ENOTDIR: FsErrorCode.NOT_A_DIRECTORY,
  EACCES: FsErrorCode.PERMISSION_DENIED,
  EPERM: FsErrorCode.PERMISSION_DENIED,
  ENOSPC: FsErrorCode.NO_SPACE,
  EDQUOT: FsErrorCode.NO_SPACE,
  EROFS: FsErrorCode.READ_ONLY_FILESYSTEM,
  ELOOP: FsErrorCode.SYMLINK_LOOP,
  ENAMETOOLONG: FsErrorCode.PATH_TOO_LONG,
  ENXIO: FsErrorCode.SPECIAL_FILE,
  EFBIG: FsErrorCode.FILE_TOO_LARGE,
};

const osWords: Readonly<Record<string, string>> = {
  ENOENT: 'does not exist',
  EISDIR: 'is a directory',
  ENOTDIR: 'has a part that is not a directory',
  EACCES: 'is not accessible (permission denied)',
  EPERM: 'cannot be changed (operation not permitted)',
  ENOSPC: 'cannot be written: no space left on the device; the original is unchanged',
  EDQUOT: 'cannot be written: the disk quota is exceeded; the original is unchanged',
  EROFS: 'cannot be written: the file system is read-only',
  ELOOP: 'has too many levels of symbolic links',
  ENAMETOOLONG: 'is too long',
  ENXIO: 'is a socket or device, not a regular file',
  EFBIG: 'would become too large',
};

/** The OS error code (`ENOENT`, …) of a thrown value, if it has one. */
export function osCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * Turns an OS error about `path` into a `ToolError` with a stable code; a
 * `ToolError` passes through unchanged.
 */
export function fromOsError(error: unknown, path: string, doing: string): Error {
  if (DshError.isInstance(error)) return error;
  const os = osCodeOf(error);
  if (os === undefined) return error instanceof Error ? error : new Error(String(error));
  const code = osCodes[os] ?? FsErrorCode.IO_ERROR;
  const words = osWords[os] ?? `failed (${os})`;
  return fsError(code, `${doing} ${path}: the path ${words}`, { path, os });
}
