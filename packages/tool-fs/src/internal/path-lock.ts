const tails = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier call for the same real path has settled.
 * Process-wide, so two hosts editing one file are serialized too.
 */
export async function withPathLock<T>(real: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(real) ?? Promise.resolve();
  let release: () => void = () => undefined;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(real, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(real) === tail) tails.delete(real);
  }
}
