/**
 * The in-process queue of the JSONL lock (`stores/jsonl/_folder.ts` `KeyedMutex`): a key
 * taken at once with `tryAcquire` (an append within a burst) makes no promise unless someone
 * waits, and someone who waits is let in exactly when it is given back, in arrival order.
 */
import { test } from "node:test";
import { assertEquals } from "../conformance/assert.ts";
import { KeyedMutex } from "../../stores/jsonl/_folder.ts";

test("keyed mutex: a key held through tryAcquire keeps later takers out until it is given back, then lets waiters in in order", async () => {
  const mutex = new KeyedMutex();
  const release = mutex.tryAcquire("k")!;
  assertEquals(mutex.tryAcquire("k"), undefined, "held: no second taker at once");
  const order: string[] = [];
  const first = mutex.acquire("k", 1_000).then((done) => {
    order.push("first");
    return done;
  });
  const second = mutex.acquire("k", 1_000).then((done) => {
    order.push("second");
    done();
  });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assertEquals(order, [], "nobody gets in while the key is held");
  release();
  release(); // a second call gives back nothing more
  const releaseFirst = await first;
  assertEquals(order, ["first"]);
  assertEquals(mutex.tryAcquire("k"), undefined, "the first waiter holds it now");
  releaseFirst();
  await second;
  assertEquals(order, ["first", "second"]);
  const again = mutex.tryAcquire("k");
  assertEquals(typeof again, "function", "free again once every holder gave it back");
  again!();
});
