/**
 * Expands `${VAR}` and `${VAR:-default}` the way Claude Code does in `.mcp.json`.
 * Returns the text, or the names of variables that are unset and have no default.
 */
export function expandEnv(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
): { readonly value: string; readonly missing: readonly string[] } {
  const missing: string[] = [];
  const value = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_whole, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    if (found !== undefined) return found;
    missing.push(name);
    return '';
  });
  return { value, missing };
}
