// Type tests (checked by `tsc -p tsconfig.test.json`): the prompts people write first compile
// without `as const`, and a misspelt synchronous answer does not.
import { describe, expectTypeOf, it } from 'vitest';
import { type PermissionPrompt, permissions } from './index.js';

describe('PermissionPrompt', () => {
  it('accepts the obvious stubs, synchronous and async', () => {
    const perms = permissions({ settingsFiles: false });
    expectTypeOf(perms.approval(async () => 'allowed-once')).toBeFunction();
    expectTypeOf(perms.approval(() => 'rejected')).toBeFunction();
    expectTypeOf(perms.approval(async () => ({ answer: 'allowed-session' }))).toBeFunction();
    const prompt: PermissionPrompt = async (request) => (request.remember.scopes.length > 0 ? 'allowed-once' : 'rejected');
    expectTypeOf(prompt).toBeFunction();
  });

  it('refuses a misspelt synchronous answer', () => {
    const perms = permissions({ settingsFiles: false });
    // @ts-expect-error: 'allowed_once' is not an answer.
    perms.approval(() => 'allowed_once');
  });
});
