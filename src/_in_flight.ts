/**
 * Two ways of keeping work in flight for `syncStores`: a bounded pool over indexes, and an
 * async iterator whose next step is always asked for ahead.
 *
 * @module
 */

/**
 * `run(0)` ... `run(count - 1)`, at most `limit` at a time; after a failure no new one
 * starts, the running ones settle, and the first failure rejects.
 */
export async function inFlight(
  count: number,
  limit: number,
  run: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < count) {
      const index = next++;
      try {
        await run(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  if (failure) throw failure.error;
}

/**
 * The iterator with its next step always asked for ahead: the source reads the next batch
 * while the caller writes this one. `return` lets the source release what it holds.
 */
export function readAhead<T>(iterator: AsyncIterator<T>) {
  let pending: Promise<IteratorResult<T>> | undefined = iterator.next();
  // A step failing while nobody awaits it yet is reported when it is awaited.
  pending.catch(() => {});
  return {
    async next(): Promise<IteratorResult<T>> {
      const step = await pending!;
      pending = step.done ? undefined : iterator.next();
      pending?.catch(() => {});
      return step;
    },
    async return(): Promise<void> {
      await pending?.catch(() => {});
      await iterator.return?.();
    },
  };
}
