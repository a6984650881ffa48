/**
 * Live updates from `mu serve`: one `EventSource` on `/api/events` (same origin, so the
 * page's `connect-src 'self'` allows it) while the page shows the computer's list or one of
 * its sessions. The server polls its store's change token and sends `sessions` (the
 * listing changed) or `session` (the watched session changed, e.g. an agent appended).
 *
 * @module
 */

/** What to do on a change. */
export interface LiveHandlers {
  /** The watched session changed. */
  session(sessionId: string): void;
  /** The listing changed. */
  sessions(): void;
}

/** One subscription at a time: the list, one session, or nothing. */
export class LiveUpdates {
  #events: EventSource | undefined;
  #watching: string | undefined;

  constructor(readonly handlers: LiveHandlers) {}

  /** Watch the listing (`null`), one session (its id), or stop (`undefined`). */
  watch(sessionId: string | null | undefined): void {
    const target = sessionId === undefined ? undefined : sessionId ?? "";
    if (this.#events && this.#watching === target) return;
    this.#events?.close();
    this.#events = undefined;
    this.#watching = target;
    if (target === undefined || typeof EventSource !== "function") return;
    const url = target === "" ? "/api/events" : `/api/events?session=${encodeURIComponent(target)}`;
    const events = new EventSource(url);
    let connected = false;
    // A reconnect may have missed changes: treat it as one.
    events.addEventListener("ready", () => {
      if (connected) this.#changed(target);
      connected = true;
    });
    events.addEventListener("session", () => {
      if (target !== "") this.handlers.session(target);
    });
    events.addEventListener("sessions", () => {
      if (target === "") this.handlers.sessions();
    });
    this.#events = events;
  }

  #changed(target: string): void {
    if (target === "") this.handlers.sessions();
    else this.handlers.session(target);
  }
}
