import { createHost, type Host } from '../host.js';
import type { HostOptions } from '../options.js';
import type { Outcome } from '../outcome.js';
import type { Plugin } from '../plugin.js';
import { RecordingUi } from './recording-ui.js';

/** Options of a test host: any host option, plus plugins to register. */
export interface TestHostOptions extends Omit<HostOptions, 'ui'> {
  readonly plugins?: readonly Plugin[];
}

/** A real host with a recording UI and a shortcut for one call. */
export interface TestHost {
  readonly host: Host;
  readonly ui: RecordingUi;
  /** Runs a one-call step and returns that call's outcome. */
  call(name: string, args?: Readonly<Record<string, unknown>> | string, id?: string): Promise<Outcome>;
}

let calls = 0;

/**
 * Builds a real host for tests. Unlike `createHost`, the default decision is
 * `allow`, so a plugin's tools run unless a tap or guard says otherwise.
 */
export async function createTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const { plugins = [], ...hostOptions } = options;
  const ui = new RecordingUi();
  const host = createHost({ defaultDecision: 'allow', ...hostOptions, ui });
  for (const plugin of plugins) await host.use(plugin);
  return {
    host,
    ui,
    async call(name, args = {}, id) {
      calls += 1;
      const { results } = await host.runStep({ calls: [{ id: id ?? `test-${calls}`, name, args }] });
      const result = results[0];
      if (result === undefined) throw new Error('the step returned no result');
      return result.outcome;
    },
  };
}
