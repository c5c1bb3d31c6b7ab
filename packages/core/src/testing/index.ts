/**
 * Helpers that build a real host for tests: plugins are tested through the
 * actual pipeline, never through a mock of it.
 *
 * @packageDocumentation
 */

export { processExists } from '../process-exists.js';
export { type ApprovalScript, scriptedApproval } from './approvals.js';
export { callOf, stepOf } from './calls.js';
export { logProblems } from './log-problems.js';
export { type RecordedCard, RecordingUi } from './recording-ui.js';
export { createTestHost, type TestHost, type TestHostOptions } from './test-host.js';
