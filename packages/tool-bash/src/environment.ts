/**
 * Host variables a command sees by default: enough for a working shell and
 * locale, nothing that usually holds a secret. A trailing `*` matches a prefix.
 */
export const defaultEnvAllowList: readonly string[] = Object.freeze([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
  'COLORTERM',
  'NO_COLOR',
]);

/** The variable that carries each call's marker into every process it starts. */
export const callMarkerVariable = 'DSH_BASH_CALL';

/**
 * The allow-listed host variables. Read once, when the plugin registers:
 * walking `process.env` costs more per call than the rest of the tool's own work.
 */
export function allowedHostEnvironment(
  host: Readonly<Record<string, string | undefined>>,
  allow: readonly string[],
): Readonly<Record<string, string>> {
  const exact = new Set(allow.filter((name) => !name.endsWith('*')));
  const prefixes = allow.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined) continue;
    if (exact.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) env[name] = value;
  }
  return Object.freeze(env);
}

/**
 * The environment of a command: the allow-listed host variables, then the
 * configured fixed values, then the sandbox's own (`TMPDIR`), then the call
 * marker, which nothing overrides.
 */
export function commandEnvironment(
  host: Readonly<Record<string, string>>,
  fixed: Readonly<Record<string, string>>,
  sandbox: Readonly<Record<string, string>>,
  marker: string,
): Record<string, string> {
  return { ...host, ...fixed, ...sandbox, [callMarkerVariable]: marker };
}
