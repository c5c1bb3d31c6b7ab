import { basename, dirname, join, resolve } from 'node:path';
import type { Anchors } from '@deepseek-ai/dsh-rules';
import { PermissionsErrorCode } from './errors.js';
import type { PermissionProblem } from './settings.js';

/**
 * Claude Code's `sandbox` settings as dsh reads them, merged across the
 * settings files as Claude Code merges them: lists join, a single value
 * comes from the file of highest precedence that sets it. Filesystem paths
 * are absolute here.
 */
export interface SandboxSettings {
  readonly enabled?: boolean;
  readonly autoAllowBashIfSandboxed?: boolean;
  readonly excludedCommands: readonly string[];
  readonly allowUnsandboxedCommands?: boolean;
  readonly filesystem: {
    readonly allowWrite: readonly string[];
    readonly denyWrite: readonly string[];
    readonly denyRead: readonly string[];
    readonly allowRead: readonly string[];
  };
  readonly network: {
    readonly allowedDomains: readonly string[];
    readonly deniedDomains: readonly string[];
    /** The managed file's own `allowedDomains` (only these count with `allowManagedDomainsOnly`). */
    readonly managedAllowedDomains: readonly string[];
    readonly allowManagedDomainsOnly?: boolean;
    readonly allowLocalBinding?: boolean;
    readonly allowUnixSockets: readonly string[];
    readonly allowAllUnixSockets?: boolean;
    readonly httpProxyPort?: number;
    readonly socksProxyPort?: number;
  };
}

/** No `sandbox` settings at all. */
export const noSandboxSettings: SandboxSettings = Object.freeze({
  excludedCommands: [],
  filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
  network: { allowedDomains: [], deniedDomains: [], managedAllowedDomains: [], allowUnixSockets: [] },
});

/** The managed settings file Claude Code reads on Linux; it outranks every other file. */
export const managedSettingsFile = '/etc/claude-code/managed-settings.json';

type Kind = 'bool' | 'strings' | 'port';
const topKeys: Record<string, Kind | 'object'> = {
  enabled: 'bool',
  autoAllowBashIfSandboxed: 'bool',
  excludedCommands: 'strings',
  allowUnsandboxedCommands: 'bool',
  filesystem: 'object',
  network: 'object',
};
const filesystemKeys: Record<string, Kind> = { allowWrite: 'strings', denyWrite: 'strings', denyRead: 'strings', allowRead: 'strings' };
const networkKeys: Record<string, Kind> = {
  allowedDomains: 'strings',
  deniedDomains: 'strings',
  allowManagedDomainsOnly: 'bool',
  allowLocalBinding: 'bool',
  allowUnixSockets: 'strings',
  allowAllUnixSockets: 'bool',
  httpProxyPort: 'port',
  socksProxyPort: 'port',
};
/** Keys Claude Code knows that dsh does not implement: each is reported where it is set. */
const knownElsewhere = new Set([
  'failIfUnavailable',
  'ignoreViolations',
  'enableWeakerNestedSandbox',
  'enableWeakerNetworkIsolation',
  'ripgrep',
  'filesystem.allowManagedReadPathsOnly',
  'filesystem.disabled',
  'network.allowMachLookup',
]);

/** Collects the `sandbox` sections of settings files, lowest precedence first, then merges them. */
export class SandboxSettingsReader {
  readonly #anchors: Anchors;
  readonly #lists = new Map<string, string[]>();
  readonly #values = new Map<string, boolean | number>();
  readonly problems: PermissionProblem[] = [];

  constructor(anchors: Anchors) {
    this.#anchors = anchors;
  }

  /** Reads one file's `sandbox` value (`shown` is its name as users see it; `lineOf` finds a key's line). */
  read(section: unknown, file: string, shown: string, lineOf: (path: readonly (string | number)[]) => number | undefined): void {
    if (section === undefined) return;
    const at = (path: readonly (string | number)[]) => ({ file, shown, line: lineOf(['sandbox', ...path]) });
    if (!isObject(section)) {
      this.#problem(PermissionsErrorCode.INVALID_SETTINGS, '"sandbox" must be an object; it is ignored', at([]));
      return;
    }
    const base = relativeBase(file, this.#anchors);
    const managed = file === managedSettingsFile;
    for (const [key, value] of Object.entries(section)) {
      const kind = topKeys[key];
      if (kind === 'object') {
        if (!isObject(value)) {
          this.#problem(PermissionsErrorCode.INVALID_SETTINGS, `"sandbox.${key}" must be an object; it is ignored`, at([key]));
          continue;
        }
        const keys = key === 'filesystem' ? filesystemKeys : networkKeys;
        for (const [inner, v] of Object.entries(value)) {
          const name = `${key}.${inner}`;
          const innerKind = keys[inner];
          if (innerKind === undefined) this.#unknown(name, at([key, inner]));
          else this.#take(name, innerKind, v, at([key, inner]), key === 'filesystem' ? base : undefined, managed);
        }
      } else if (kind === undefined) this.#unknown(key, at([key]));
      else this.#take(key, kind, value, at([key]), undefined, managed);
    }
  }

  /** The merged settings. */
  settings(): SandboxSettings {
    const list = (name: string): string[] => this.#lists.get(name) ?? [];
    const value = <T extends boolean | number>(name: string): { [k: string]: T } => {
      const v = this.#values.get(name);
      return v === undefined ? {} : { [name.slice(name.indexOf('.') + 1)]: v as T };
    };
    return {
      ...value<boolean>('enabled'),
      ...value<boolean>('autoAllowBashIfSandboxed'),
      excludedCommands: list('excludedCommands'),
      ...value<boolean>('allowUnsandboxedCommands'),
      filesystem: {
        allowWrite: list('filesystem.allowWrite'),
        denyWrite: list('filesystem.denyWrite'),
        denyRead: list('filesystem.denyRead'),
        allowRead: list('filesystem.allowRead'),
      },
      network: {
        allowedDomains: list('network.allowedDomains'),
        deniedDomains: list('network.deniedDomains'),
        managedAllowedDomains: list('managed.allowedDomains'),
        allowUnixSockets: list('network.allowUnixSockets'),
        ...value<boolean>('network.allowManagedDomainsOnly'),
        ...value<boolean>('network.allowLocalBinding'),
        ...value<boolean>('network.allowAllUnixSockets'),
        ...value<number>('network.httpProxyPort'),
        ...value<number>('network.socksProxyPort'),
      },
    };
  }

  #take(name: string, kind: Kind, value: unknown, where: Where, base: string | undefined, managed: boolean): void {
    const expected = invalidFor(kind, value);
    if (expected !== undefined) {
      this.#invalid(name, expected, where);
      return;
    }
    const unsupported = unsupportedReason(name, value);
    if (unsupported !== undefined)
      this.#problem(PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED, `"sandbox.${name}": ${unsupported}`, where);
    if (kind !== 'strings') {
      this.#values.set(name, value as boolean | number);
      return;
    }
    const entries = (value as string[]).map((v) => (base === undefined ? v : sandboxPath(v, base, this.#anchors)));
    this.#lists.set(name, [...(this.#lists.get(name) ?? []), ...entries]);
    if (managed && name === 'network.allowedDomains')
      this.#lists.set('managed.allowedDomains', [...(this.#lists.get('managed.allowedDomains') ?? []), ...entries]);
  }

  #unknown(name: string, where: Where): void {
    if (knownElsewhere.has(name)) {
      this.#problem(
        PermissionsErrorCode.SANDBOX_SETTING_UNSUPPORTED,
        `"sandbox.${name}" is a Claude Code setting dsh does not support; it is ignored`,
        where,
      );
    } else {
      this.#problem(
        PermissionsErrorCode.SANDBOX_SETTING_UNKNOWN,
        `"sandbox.${name}" is not a sandbox setting Claude Code or dsh knows; it is ignored`,
        where,
      );
    }
  }

  #invalid(name: string, expected: string, where: Where): void {
    this.#problem(PermissionsErrorCode.INVALID_SETTINGS, `"sandbox.${name}" must be ${expected}; it is ignored`, where);
  }

  #problem(code: string, message: string, where: Where): void {
    this.problems.push({
      code,
      message: `${where.shown}${where.line === undefined ? '' : `:${where.line}`}: ${message}`,
      file: where.file,
      ...(where.line === undefined ? {} : { line: where.line }),
    });
  }
}

interface Where {
  readonly file: string;
  readonly shown: string;
  readonly line: number | undefined;
}

/** What a value of `kind` should have been, or undefined when it is one. */
function invalidFor(kind: Kind, value: unknown): string | undefined {
  if (kind === 'bool') return typeof value === 'boolean' ? undefined : 'true or false';
  if (kind === 'port')
    return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535 ? undefined : 'a port number (1-65535)';
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && v !== '') ? undefined : 'an array of non-empty strings';
}

/** What dsh does differently for a setting with this value, or undefined when it does what Claude Code does. */
function unsupportedReason(name: string, value: unknown): string | undefined {
  switch (name) {
    case 'enabled':
      return value === false
        ? 'dsh does not switch the sandbox off from settings (tool-bash\'s "sandbox.provider" option decides); commands stay sandboxed'
        : undefined;
    case 'autoAllowBashIfSandboxed':
      return value === true ? 'not supported: bash calls are decided by the rules and the mode, sandboxed or not' : undefined;
    case 'excludedCommands':
      return (value as string[]).length > 0 ? 'not supported: every command runs inside the sandbox' : undefined;
    case 'allowUnsandboxedCommands':
      return value === true ? 'not supported: dsh has no way for a command to leave the sandbox' : undefined;
    case 'filesystem.allowRead':
      return 'not supported: a hidden path stays hidden in full (stricter than Claude Code)';
    case 'network.allowUnixSockets':
      return 'not supported on Linux (Claude Code honours it on macOS only): unix sockets cannot be allowed by path';
    case 'network.allowAllUnixSockets':
      return value === true
        ? 'not supported: with the network through the proxy, unix sockets stay denied in the sandbox (only tool-bash\'s "sandbox.network: true" allows them, with the whole network)'
        : undefined;
    case 'network.httpProxyPort':
    case 'network.socksProxyPort':
      return "not supported: dsh runs its own proxy for sandboxed commands, reached through the sandbox's relay; a proxy of your own on this port is not used";
    default:
      return undefined;
  }
}

/**
 * A `sandbox.filesystem` path as an absolute path or glob, as Claude Code
 * reads them: `//p` and `/p` from the file-system root, `~/p` from home,
 * anything else from `base` (the project for project files, `~/.claude`
 * for the user's file).
 */
export function sandboxPath(entry: string, base: string, anchors: Anchors): string {
  if (entry.startsWith('//')) return `/${entry.slice(2)}`;
  if (entry.startsWith('/')) return entry;
  if (entry === '~') return anchors.homeDir;
  if (entry.startsWith('~/')) return join(anchors.homeDir, entry.slice(2));
  return resolve(base, entry);
}

/** Where a settings file's relative sandbox paths hang from. */
function relativeBase(file: string, anchors: Anchors): string {
  if (file === join(anchors.homeDir, '.claude', 'settings.json')) return dirname(file);
  const dir = dirname(file);
  return basename(dir) === '.claude' ? dirname(dir) : dir;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
