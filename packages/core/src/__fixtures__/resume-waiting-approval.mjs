// A resume that is killed while its first re-run waits for approval: argv = [log, marker file].
// The approval provider writes the call's id to the marker, then never answers.
import { writeFileSync } from 'node:fs';
import { createHost, openJsonlSink, resumeSession } from '../../dist/index.js';
import { readText } from './resume-tools.mjs';

const [log, marker] = process.argv.slice(2);
const host = createHost({
  session: 's1',
  sink: await openJsonlSink(log),
  defaultDecision: 'ask',
  approvalTimeoutMs: 3_600_000,
  approval: (request) => {
    writeFileSync(marker, request.call.id);
    return new Promise(() => undefined);
  },
});
host.tools.register(readText);
// A waiting approval holds no timer of its own (its deadline timer is unref'd): keep the process up, as a
// host waiting on a person's answer at a terminal would be, until the test kills it.
setInterval(() => undefined, 60_000);
await resumeSession(host, log);
process.stderr.write('the resume finished: the test should have killed this process\n');
