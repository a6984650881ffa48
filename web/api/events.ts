/**
 * Change notification for `mu serve`: a poller asks the store for cheap change tokens
 * (`SessionStore.changeToken`, or the listing / the session itself for stores without
 * one) while anyone listens, and pushes server-sent events when a token moves. Appends by
 * other processes (an agent writing the session) reach an open viewer within one poll.
 *
 * @module
 */
import type { SessionStore } from "../../src/store.ts";

/** What changed: one session, or the listing of the store. */
export type ChangeEvent = { kind: "session"; sessionId: string } | { kind: "sessions" };

type Listener = (event: ChangeEvent) => void;

async function tokenOf(store: SessionStore, sessionId?: string): Promise<string> {
  if (store.changeToken) return await store.changeToken(sessionId);
  if (sessionId !== undefined) {
    const { header, entries } = await store.load(sessionId);
    return `${entries.length}:${JSON.stringify(header).length}`;
  }
  const rows = await store.list({ includeInternal: true });
  return rows.map((row) => `${row.id}@${row.modified.getTime()}/${row.messageCount}`).join(",");
}

/** Polls a store for changes while there are subscribers. */
export class ChangeWatcher {
  readonly #store: SessionStore;
  readonly #pollMs: number;
  readonly #listeners = new Map<Listener, string | undefined>();
  readonly #tokens = new Map<string, string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #polls = 0;

  constructor(store: SessionStore, pollMs = 250) {
    this.#store = store;
    this.#pollMs = pollMs;
  }

  /** Polls run so far (tests count them instead of timing). */
  get polls(): number {
    return this.#polls;
  }

  /** Listen to the store's listing and, if given, one session; returns the unsubscribe. */
  subscribe(listener: Listener, sessionId?: string): () => void {
    this.#listeners.set(listener, sessionId);
    this.#schedule();
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  /** Stop polling (subscribers stay registered until they unsubscribe). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#listeners.size === 0) return;
    this.#timer = setTimeout(async () => {
      try {
        await this.poll();
      } finally {
        this.#timer = undefined;
        this.#schedule();
      }
    }, this.#pollMs);
  }

  /**
   * Record the current tokens of the store and of `sessionId` when none is known yet, so a
   * change right after a client subscribed is reported rather than taken as the baseline.
   */
  async baseline(sessionId?: string): Promise<void> {
    for (const id of new Set([undefined, sessionId])) {
      const key = id ?? "";
      if (this.#tokens.has(key)) continue;
      try {
        this.#tokens.set(key, await tokenOf(this.#store, id));
      } catch {
        this.#tokens.set(key, "unavailable");
      }
    }
  }

  /** One poll: compare every watched token with the last seen one and notify. */
  async poll(): Promise<void> {
    this.#polls++;
    const watched = new Set<string | undefined>([undefined, ...this.#listeners.values()]);
    for (const sessionId of watched) {
      const key = sessionId ?? "";
      let token: string;
      try {
        token = await tokenOf(this.#store, sessionId);
      } catch {
        token = "unavailable"; // deleted or unreadable: a change too
      }
      const before = this.#tokens.get(key);
      this.#tokens.set(key, token);
      if (before === undefined || before === token) continue;
      const event: ChangeEvent = sessionId === undefined
        ? { kind: "sessions" }
        : { kind: "session", sessionId };
      for (const [listener, watching] of this.#listeners) {
        if (sessionId === undefined || watching === sessionId) listener(event);
      }
    }
  }
}

/**
 * A `text/event-stream` response that forwards the watcher's events until the client
 * leaves; `onEnd` runs once when the stream ends, however it ends.
 */
export function eventStream(
  watcher: ChangeWatcher,
  sessionId: string | undefined,
  signal: AbortSignal,
  onEnd: () => void = () => {},
): Response {
  const encoder = new TextEncoder();
  let subscribed = () => {};
  let ended = false;
  const unsubscribe = () => {
    subscribed();
    if (!ended) onEnd();
    ended = true;
  };
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          close();
        }
      };
      const close = () => {
        unsubscribe();
        clearInterval(keepAlive);
        try {
          controller.close();
        } catch { /* already closed */ }
      };
      subscribed = watcher.subscribe((event) => {
        send(`event: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`);
      }, sessionId);
      keepAlive = setInterval(() => send(": keep-alive\n\n"), 15_000);
      if (signal.aborted) return close(); // gone before the stream started
      signal.addEventListener("abort", close, { once: true });
      // "ready" only once the tokens are known: every write after it is reported.
      watcher.baseline(sessionId).then(() => send("retry: 1000\nevent: ready\ndata: {}\n\n"));
    },
    cancel() {
      unsubscribe();
      clearInterval(keepAlive);
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    },
  });
}
