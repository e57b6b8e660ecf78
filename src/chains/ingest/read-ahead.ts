/**
 * Reads that run ahead of their consumer, in order: each read starts as soon
 * as the one before it has answered (so reads go out one at a time, each from
 * where the previous one really ended, however the source narrowed it), while
 * fewer than `depth` answers wait to be consumed. The consumer commits them in
 * order at its own pace; a catch-up thus keeps several block ranges in flight
 * while the cursor still advances strictly in order.
 *
 * Ends at the first null answer or when `following` answers null. A failed
 * read is thrown to the consumer when it reaches it, never before; reads
 * still under way when the consumer stops finish unobserved.
 */
export async function* readAhead<T>(
  first: () => Promise<T | null>,
  following: (previous: T) => (() => Promise<T | null>) | null,
  depth: number,
): AsyncGenerator<T> {
  const queue: Promise<T | null>[] = [];
  let tail: Promise<T | null> | null = null;
  const topUp = () => {
    while (queue.length < Math.max(1, depth)) {
      const read: Promise<T | null> =
        tail === null
          ? first()
          : tail.then((previous) => {
              if (previous === null) return null;
              const next = following(previous);
              return next === null ? null : next();
            });
      read.catch(() => undefined); // observed by the consumer, in order
      queue.push(read);
      tail = read;
    }
  };
  for (;;) {
    topUp();
    const answer = await queue.shift();
    if (answer === null || answer === undefined) return;
    yield answer;
  }
}
