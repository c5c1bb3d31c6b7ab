// Type tests (checked by `tsc -p tsconfig.test.json`): the approval providers people write first
// must compile without `as const`, and a misspelt synchronous answer must not.
import { describe, expectTypeOf, it } from 'vitest';
import { type ApprovalProvider, createHost } from './index.js';

describe('ApprovalProvider', () => {
  it('accepts the obvious stubs, synchronous and async', () => {
    createHost({ approval: async () => 'allowed-once' });
    createHost({ approval: () => 'rejected' });
    createHost({ approval: async (request) => (request.reason === undefined ? 'allowed-once' : { answer: 'rejected', message: 'no' }) });
    const provider: ApprovalProvider = async () => ({ answer: 'allowed-once' });
    expectTypeOf(provider).toBeFunction();
  });

  it('refuses a misspelt synchronous answer', () => {
    // @ts-expect-error: 'allowed_once' is not an ApprovalAnswer.
    createHost({ approval: () => 'allowed_once' });
    // @ts-expect-error: an object answer is checked too.
    createHost({ approval: async () => ({ answer: 'yes' }) });
  });
});
