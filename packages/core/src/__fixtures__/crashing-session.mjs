// A session that is killed mid-call: argv = [log, notes file, directory for markers].
// One step completes, then a step of a read and a command stays running until the test kills this process.
import { join } from 'node:path';
import { createHost, openJsonlSink } from '../../dist/index.js';
import { readText, runCommand } from './resume-tools.mjs';

const [log, notes, dir] = process.argv.slice(2);
const sink = await openJsonlSink(log);
const host = createHost({ session: 'crash-session', sink, defaultDecision: 'allow' });
host.tools.register(readText);
host.tools.register(runCommand);
await host.runStep({ calls: [{ id: 'c1', name: 'read_text', args: JSON.stringify({ path: notes }) }] });
await host.runStep({
  calls: [
    { id: 'c2', name: 'read_text', args: JSON.stringify({ path: notes, waitFor: join(dir, 'go') }) },
    { id: 'c3', name: 'run_command', args: { marker: join(dir, 'started') } },
  ],
});
process.stderr.write('the second step finished: the test should have killed this process\n');
