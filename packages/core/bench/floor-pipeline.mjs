// The floor of the per-call design: what the contract makes any pipeline do beyond tapable's
// waterfall, written inline with nothing else. Per call it
//   - logs four frozen events with their time (step/start, tool/call, tool/result, step/end) in a
//     log that keeps the last 64, as the ratio hosts' logs do;
//   - parses JSON text with JSON.parse, checks the arguments against the tool's zod schema and
//     freezes what the schema returns;
//   - runs the same no-op taps the hosts get, as plain loops: 10 pre-execute taps on one state
//     object, 3 guards, 10 execute taps each calling `next`, then the body, 10 post-execute taps and
//     10 result observers on the frozen outcome.
// It leaves out what dsh adds for its guarantees: lossless numbers and the `__proto__` check, call
// identities and tokens, deadlines and aborts around every stage, the checks of what each tap
// returns, the log's byte bound, and results in the model's order. So it is a lower bound: no
// pipeline that keeps the contract can be cheaper.

/** A per-call function `(sent) => Promise<outcome>` over `body` and `schema`, with `taps` no-op taps per point. */
export function floorPipeline({ body, schema, taps = 10, guards = 3 }) {
  const pre = Array.from({ length: taps }, () => () => undefined);
  const execute = Array.from({ length: taps }, () => (_ctx, next) => next());
  const post = Array.from({ length: taps }, () => () => undefined);
  const observers = Array.from({ length: taps }, () => () => undefined);
  const checks = Array.from({ length: guards }, () => () => 'abstain');

  const retain = 64;
  const events = new Array(retain);
  let seq = 0;
  let lastMs = -1;
  let lastAt = '';
  const log = (type, data) => {
    const ms = Date.now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastAt = new Date(ms).toISOString();
    }
    seq += 1;
    events[seq % retain] = Object.freeze({ seq, at: lastAt, session: 'bench', type, data });
  };

  return async (sent) => {
    log('step/start', { calls: ['c'] });
    log('tool/call', { name: 'echo', args: sent });
    const checked = schema.safeParse(typeof sent === 'string' ? JSON.parse(sent) : sent);
    if (!checked.success) throw new Error('the floor got arguments its schema refuses');
    const args = Object.freeze(checked.data);
    const state = { args, decision: 'allow' };
    for (const tap of pre) tap(state);
    const input = Object.freeze({ args });
    for (const check of checks) if (check(input) !== 'abstain') throw new Error('a floor guard denied');
    const run = (index) => (index === execute.length ? body(args) : execute[index](input, () => run(index + 1)));
    const outcome = Object.freeze({ status: 'ok', output: Object.freeze(await run(0)) });
    for (const tap of post) tap(outcome);
    for (const observer of observers) observer(outcome);
    log('tool/result', { name: 'echo', outcome });
    log('step/end', { end: 'completed' });
    return outcome;
  };
}
