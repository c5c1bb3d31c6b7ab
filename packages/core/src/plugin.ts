import { DshError, ErrorCode } from './errors.js';
import type { Host } from './host.js';
import { parseRange } from './internal/semver-range.js';

/**
 * A plugin: a name, a version, and `register`, which the host calls once to
 * let it add its tools, taps, guards and gate handlers. Plugins are made by a
 * named factory called with the plugin's options (`toolFs({ roots })`).
 */
export interface Plugin {
  /** Unique per host: a second plugin with the same name is refused. */
  readonly name: string;
  readonly version: string;
  /**
   * Plugins that must be registered first: a name, or a name with the versions
   * accepted (an npm semver range, `{ name: 'tool-fs', versions: '>=0.2.0 <1.0.0' }`).
   */
  readonly dependencies?: readonly (string | PluginDependency)[];
  register(host: Host): void | Promise<void>;
  /**
   * Stops what the plugin started for `host` (processes, servers, timers):
   * `host.close()` calls it once per host it registered with, newest plugin
   * first, with the host `register` was given. A close that throws or
   * outlasts the host's plugin deadline is recorded in `host.diagnostics`,
   * and the others are closed all the same.
   */
  close?(host: Host): void | Promise<void>;
}

/** A plugin another plugin needs, and which of its versions will do. */
export interface PluginDependency {
  readonly name: string;
  /** An npm semver range (`^1.2.0`, `>=0.2.0 <1.0.0`, `1.x || 2.x`); a prerelease matches only a range naming one. */
  readonly versions: string;
}

/** Declares a plugin, checking its shape at once. */
export function definePlugin(plugin: Plugin): Plugin {
  if (typeof plugin !== 'object' || plugin === null) {
    throw new DshError(ErrorCode.INVALID_PLUGIN, 'a plugin must be an object');
  }
  if (typeof plugin.name !== 'string' || plugin.name.length === 0) {
    throw new DshError(ErrorCode.INVALID_PLUGIN, 'a plugin needs a non-empty name');
  }
  if (typeof plugin.version !== 'string' || typeof plugin.register !== 'function') {
    throw new DshError(ErrorCode.INVALID_PLUGIN, `plugin "${plugin.name}" needs a version string and a register function`);
  }
  if (plugin.close !== undefined && typeof plugin.close !== 'function') {
    throw new DshError(ErrorCode.INVALID_PLUGIN, `plugin "${plugin.name}": close must be a function when given`);
  }
  for (const dependency of plugin.dependencies ?? []) {
    if (typeof dependency === 'string') continue;
    const versions: unknown = dependency?.versions;
    if (typeof dependency?.name !== 'string' || typeof versions !== 'string' || parseRange(versions) === undefined) {
      throw new DshError(
        ErrorCode.INVALID_PLUGIN,
        `plugin "${plugin.name}" gives ${JSON.stringify(versions)} as the versions of "${String(dependency?.name)}": not a semver range`,
      );
    }
  }
  return Object.freeze({ ...plugin });
}
