/** One call of a turn, from the moment the SDK hands it to the bridge until its result is logged or it waits for a person. */
interface Entry {
  readonly callId: string;
  /** The run the call belongs to (its `RunContext`): only calls of the same run are ordered. */
  readonly run: object;
  readonly released: Promise<void>;
  release(): void;
}

/**
 * Keeps `tool/result` events of one turn in the model's order. The SDK hands
 * the calls of a turn to the bridge in the model's order, and each becomes its
 * own dsh step (see the README), so core cannot order their results; a
 * `tools/result` observer, which core awaits before it writes the event, holds
 * a call's result back until every earlier call of the same run has its result
 * logged or waits for a person (a call that interrupts the run cannot hold the others).
 */
export class ResultOrder {
  #entries: Entry[] = [];

  /** Records a call in arrival order; call it before the first `await`, so arrival is the model's order. */
  enter(callId: string, run: object): Entry {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const entry: Entry = {
      callId,
      run,
      released,
      release: () => {
        this.#entries = this.#entries.filter((e) => e !== entry);
        release();
      },
    };
    this.#entries.push(entry);
    return entry;
  }

  /** The earlier calls of the same run `callId` must wait for; `undefined` when none (the common case, at no cost). */
  before(callId: string): Promise<void> | undefined {
    const index = this.#entries.findIndex((e) => e.callId === callId);
    if (index <= 0) return undefined;
    const own = this.#entries[index] as Entry;
    const earlier = this.#entries.slice(0, index).filter((e) => e.run === own.run);
    if (earlier.length === 0) return undefined;
    return Promise.all(earlier.map((e) => e.released)).then(() => undefined);
  }

  /** Releases the entry of `callId`, if any. */
  release(callId: string): void {
    this.#entries.find((e) => e.callId === callId)?.release();
  }
}
