/**
 * The worker store channel without a browser: the conformance suite through a
 * `MessageChannel` (in process) and through a real Deno `Worker`, typed errors across the
 * wire, and a worker that fails at start-up. Chromium runs the same channel against the
 * SQLite worker in tests/deno/browser.test.ts.
 */
import {
  EntryNotFoundError,
  InvalidArgumentError,
  SessionError,
  SessionExistsError,
  SessionFormatError,
  SessionNotFoundError,
  SessionStorageError,
  type SessionStore,
} from "../../core.ts";
import type { ControlMessage } from "../browser/memory_store_worker.ts";
import { memorySubject } from "../conformance/faults.ts";
import { TornTailError } from "../../stores/jsonl/store.ts";
import { serveSessionStore } from "../../stores/browser/_channel.ts";
import { errorFromWire, errorToWire } from "../../src/rpc.ts";
import { removeWorkerStorage, WorkerSessionStore } from "../../stores/browser/worker_client.ts";
import { assert, assertEquals, assertRejects } from "../conformance/assert.ts";
import { conformance } from "../conformance/mod.ts";
import { freshId, header, userEntry } from "../conformance/store_suite.ts";

/** Serve a store over an in-process MessageChannel and return the page-side client. */
async function overChannel(store: SessionStore): Promise<SessionStore> {
  const { port1, port2 } = new MessageChannel();
  serveSessionStore(port2, store);
  return await WorkerSessionStore.overPort(port1);
}

const memory = memorySubject("memory");
conformance((name, fn) => Deno.test(name, fn), {
  name: "worker channel (MessageChannel, memory)",
  open: async () => {
    const opened = await memory.open(); // its fault and damage hooks reach the served store
    return {
      ...opened,
      store: await overChannel(opened.store),
      reopen: async () => await overChannel(await opened.reopen!()),
    };
  },
});

const workerUrl = new URL("../browser/memory_store_worker.ts", import.meta.url);

/** Ask the memory worker to arm a fault or damage a session; resolves once it has. */
function control(worker: Worker, message: Omit<ControlMessage, "type" | "port">): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  const done = new Promise<void>((resolve) => port1.onmessage = () => resolve());
  worker.postMessage({ ...message, type: "mu-tests/control", port: port2 }, [port2]);
  return done.finally(() => port1.close());
}

Deno.test("worker channel: conformance through a real Deno Worker", async (t) => {
  const worker = new Worker(workerUrl, { type: "module" });
  try {
    const steps: Array<[string, () => Promise<void>]> = [];
    conformance((name, fn) => steps.push([name, fn]), {
      name: "worker channel (Deno Worker, memory)",
      open: async () => {
        const options = { name: freshId("mem") };
        return {
          store: await WorkerSessionStore.connect(worker, options),
          reopen: () => WorkerSessionStore.connect(worker, options),
          cleanup: () => removeWorkerStorage(worker, options),
          failNextWrite: () => control(worker, { action: "fail-next-write", ...options }),
          damage: (sessionId) => control(worker, { action: "damage", sessionId, ...options }),
        };
      },
    });
    for (const [name, fn] of steps) await t.step(name, fn);
  } finally {
    worker.terminate();
  }
});

Deno.test("worker channel: typed errors survive the wire with their fields", () => {
  const cases: Error[] = [
    new SessionNotFoundError("s1"),
    new SessionExistsError("s2"),
    new SessionFormatError("bad line", { line: 7, byteOffset: 99, source: "x.jsonl" }),
    new EntryNotFoundError("e1"),
    new SessionStorageError("disk full"),
    new InvalidArgumentError("bad id"),
    new SessionError("generic"),
  ];
  for (const original of cases) {
    const copy = errorFromWire(structuredClone(errorToWire(original)));
    assertEquals(copy.constructor, original.constructor, original.name);
    assertEquals(copy.name, original.name);
    assertEquals(copy.message, original.message);
    for (const key of ["sessionId", "entryId", "line", "byteOffset", "reason", "source"]) {
      assertEquals(
        (copy as unknown as Record<string, unknown>)[key],
        (original as unknown as Record<string, unknown>)[key],
        `${original.name}.${key}`,
      );
    }
  }
  const abort = errorFromWire(errorToWire(new DOMException("stop", "AbortError")));
  assert(abort instanceof DOMException && abort.name === "AbortError", "AbortError kept");
  // An error that is not the library's arrives typed, keeping what it said.
  const other = errorFromWire(errorToWire(new RangeError("odd")));
  assert(other instanceof SessionStorageError, "a foreign error becomes SessionStorageError");
  assertEquals(other.message, "RangeError: odd");
  // A driver's subclass keeps its name and arrives as its library base class.
  const torn = errorFromWire(errorToWire(new TornTailError("/s.jsonl", 7)));
  assert(torn instanceof SessionStorageError, "TornTailError arrives as SessionStorageError");
  assertEquals(torn.name, "TornTailError");
  assertEquals((torn as TornTailError).byteOffset, 7);
  // In a minified bundle `name` (taken from the class) is mangled; the wire names the class.
  const mangled = new SessionFormatError("bad", { line: 2 });
  mangled.name = "mt";
  const rebuilt = errorFromWire(errorToWire(mangled));
  assert(rebuilt instanceof SessionFormatError, "rebuilt by the fixed class name");
  assertEquals([rebuilt.name, rebuilt.message], ["SessionFormatError", "line 2: bad"]);
});

Deno.test("worker channel: an error thrown in the worker arrives as its class, with its fields", async () => {
  const worker = new Worker(workerUrl, { type: "module" });
  try {
    const options = { name: freshId("mem") };
    const store = await WorkerSessionStore.connect(worker, options);
    const id = freshId();
    await store.create(header(id), [userEntry("kept", null)]);
    await control(worker, { action: "damage", sessionId: id, ...options });
    const error = await assertRejects(() => store.load(id), SessionFormatError);
    assertEquals([error.line, error.source], [1, `memory:${id}`]);
    assert(error.reason.startsWith("stored record is not valid JSON"), error.reason);
    const skipped: Error[] = [];
    await store.list({ onSkipped: (s) => skipped.push(s.error) });
    assert(skipped[0] instanceof SessionFormatError, "onSkipped gets the class too");
    assertEquals((skipped[0] as SessionFormatError).line, 1);
    await assertRejects(() => store.load("missing"), SessionNotFoundError);
    await store.close();
  } finally {
    worker.terminate();
  }
});

Deno.test("worker channel: open failures, closed stores and removed storage", async () => {
  const worker = new Worker(workerUrl, { type: "module" });
  try {
    await assertRejects(
      () => WorkerSessionStore.connect(worker, { name: "x", fail: true }),
      Error,
      "refused to open",
    );
    const options = { name: freshId("mem") };
    const store = await WorkerSessionStore.connect(worker, options);
    const id = freshId();
    await store.create(header(id), [userEntry("kept", null)]);
    await store.close();
    await store.close(); // idempotent
    await assertRejects(() => store.has(id), SessionStorageError);
    const again = await WorkerSessionStore.connect(worker, options);
    assertEquals((await again.load(id)).entries.length, 1);
    await again.close();
    await removeWorkerStorage(worker, options);
    const fresh = await WorkerSessionStore.connect(worker, options);
    assertEquals(await fresh.has(id), false);
    await fresh.close();
  } finally {
    worker.terminate();
  }
});

Deno.test("worker channel: a worker that dies at start-up fails connections at once", async () => {
  const worker = new Worker(new URL("../browser/failing_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    // The worker's own error, not "did not answer in N ms": it failed before any timeout.
    const first = await assertRejects(
      () => WorkerSessionStore.connect(worker, {}, { timeoutMs: 600_000 }),
      SessionStorageError,
      "fails at start-up",
    );
    // A later connection gets the remembered failure at once (the same error), no new wait.
    const second = await assertRejects(
      () => WorkerSessionStore.connect(worker, {}, { timeoutMs: 600_000 }),
      SessionStorageError,
    );
    assert(second === first, "the start-up failure is remembered, not waited for again");
  } finally {
    worker.terminate();
  }
});
