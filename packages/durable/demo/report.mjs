// What the durable demo prints about a step's results and its session log, shared by its Restate
// half (run.mjs) and its DBOS half (dbos.mjs).
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/** An output in one line, never cut mid-value: a command's exit and first line of stdout, else short JSON or its keys. */
export function brief(output) {
  if (typeof output === 'object' && output !== null && 'exitCode' in output) {
    const first = String(output.stdout ?? '').split('\n')[0];
    return `exit ${output.exitCode}${first === '' ? '' : `, stdout ${JSON.stringify(first)}`}`;
  }
  const json = JSON.stringify(output);
  if (json === undefined) return String(output);
  if (json.length <= 100 || typeof output !== 'object' || output === null) return json;
  return `{ ${Object.keys(output).join(', ')} }`;
}

/** One line per call: `ok` with its brief output, or the code and message of an error, deny or block. */
export function resultLine({ id, outcome }) {
  if (outcome.status === 'ok') return `${id}: ok ${brief(outcome.output)}`;
  const { code, message } = outcome.status === 'error' ? outcome.error : { code: outcome.code, message: outcome.reason };
  return `${id}: ${outcome.status} ${code}: ${message}`;
}

/** Where the demo left its folder and session log, and the command that shows the log in this clone. */
export function logLines(folder, logPath) {
  const shown = relative(repoRoot, logPath).startsWith('..') ? logPath : relative(repoRoot, logPath);
  return [`kept its folder ${folder}`, `session log ${logPath}`, `read it with: pnpm dsh log ${shown}`];
}
