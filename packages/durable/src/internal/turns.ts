/**
 * A first-come, first-served queue of turns. `take()` resolves, in the
 * order it was called, once every earlier turn has been given back; call
 * the function it resolves with to give the turn back.
 */
export class Turns {
  #last: Promise<void> = Promise.resolve();

  take(): Promise<() => void> {
    const before = this.#last;
    let giveBack!: () => void;
    this.#last = new Promise<void>((resolve) => {
      giveBack = resolve;
    });
    return before.then(() => giveBack);
  }
}
