/**
 * How to type `dsh` in a hint so that it runs where the user is: `pnpm dsh`
 * when this run came through a pnpm script of the dsh repository (`pnpm demo`,
 * `pnpm dsh …`), where no `dsh` is on the PATH; else `dsh`.
 */
export function dshCommand(env: NodeJS.ProcessEnv): string {
  const viaPnpm = env.npm_config_user_agent?.startsWith('pnpm/') === true;
  const script = env.npm_lifecycle_event;
  return viaPnpm && (script === 'dsh' || script === 'demo') ? 'pnpm dsh' : 'dsh';
}
