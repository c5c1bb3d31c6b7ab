// What the README's example must do when it runs from the packed packages: the production deploy
// is put to the user by the hook, approved, and then runs, except on Fridays, when the guard
// denies it after the approval.
import { strict as assert } from 'node:assert';
import type { CallResult, ContextMessage } from '@deepseek-ai/dsh-core';
import { asked, deployed } from './prelude.js';

/** Checks the step's results; `fridays` is whether it was Friday before and after the step. */
export function expectReadmeStep(results: readonly CallResult[], context: ContextMessage | undefined, fridays: [boolean, boolean]): void {
  assert.equal(results.length, 1, 'one result per call');
  const [result] = results;
  assert.ok(result);
  assert.equal(result.id, 'call_1');
  assert.equal(result.name, 'deploy');
  assert.equal(asked.length, 1, 'the production deploy is put to the user exactly once');
  assert.equal(asked[0]?.reason, 'production deploy');
  assert.deepEqual(asked[0]?.args, { service: 'api', env: 'production' });
  assert.equal(context, undefined, 'no call added context');
  const outcome = result.outcome;
  if (outcome.status === 'denied' && fridays.includes(true)) {
    assert.match(outcome.reason, /no deploys on Friday/);
    assert.deepEqual(deployed, []);
    return;
  }
  assert.ok(!fridays[0] || !fridays[1], 'on a Friday the guard must deny');
  assert.equal(outcome.status, 'ok', `the deploy should succeed, got ${JSON.stringify(outcome)}`);
  assert.deepEqual(outcome.output, { service: 'api', env: 'production', url: 'https://production.example.com/api' });
  assert.deepEqual(deployed, [{ service: 'api', env: 'production' }]);
}
