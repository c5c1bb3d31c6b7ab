import type { AbortFollower } from '../cancellation.js';

/** A follower's place in its signal's list, kept so that leaving costs the same at any size. */
interface Membership {
  readonly follower: AbortFollower;
  index: number;
}

/** The followers of each signal, behind one listener that lives as long as the signal. */
const followersOf = new WeakMap<AbortSignal, Membership[]>();

/**
 * Makes `follower` abort with `signal`'s reason when the signal aborts (at
 * once if it has). Adding and removing an EventTarget listener costs more
 * than the rest of a small call, and integrators pass the same signal to
 * step after step, so each signal gets one listener for its lifetime and
 * calls only join and leave a list (an array: hashing a fresh object per
 * call into a Set costs more). Returns the way to stop following.
 */
export function followSignal(signal: AbortSignal, follower: AbortFollower): () => void {
  if (signal.aborted) {
    follower.abort(signal.reason);
    return () => undefined;
  }
  let members = followersOf.get(signal);
  if (members === undefined) {
    const list: Membership[] = [];
    members = list;
    followersOf.set(signal, list);
    signal.addEventListener(
      'abort',
      () => {
        for (const member of list.splice(0)) member.follower.abort(signal.reason);
      },
      { once: true },
    );
  }
  const list = members;
  const membership: Membership = { follower, index: list.length };
  list.push(membership);
  return () => {
    const { index } = membership;
    if (list[index] !== membership) return;
    // Swap the last member into the leaver's place.
    const last = list.pop() as Membership;
    if (last !== membership) {
      list[index] = last;
      last.index = index;
    }
  };
}
