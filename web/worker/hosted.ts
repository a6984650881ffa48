/**
 * A session exported to a URL, as the viewer's worker opens it: read in place by
 * `HostedSessionStore`, so an export published with its index (`mu export --index`) shows
 * its default leaf's context from the index and a few byte ranges, however large the file.
 * The whole body is fetched only when the page asks for what needs every entry (the tree,
 * another leaf, the conversation), which for a hosted export the reader starts by hand.
 *
 * @module
 */
import type { ContextLoadingStore, LoadedContext } from "../../src/context_load.ts";
import type { SessionInfo } from "../../src/_listing.ts";
import type { SessionEntry, SessionHeader } from "../../src/schema.ts";
import type { CreatedSession, LoadedSession } from "../../src/store.ts";
import { HostedSessionStore } from "../../stores/http/store.ts";
import type { ResolvedSession } from "./sources.ts";

/**
 * The hosted store as the worker's session handle uses it: the context read to learn the
 * session's id answers the handle's first look, and listing answers nothing (a listing row
 * needs the whole file; the page titles the session by its id until the full load).
 */
class HostedViewerStore implements ContextLoadingStore {
  readonly kind = "hosted";
  #first: LoadedContext | undefined;

  constructor(readonly hosted: HostedSessionStore, first: LoadedContext) {
    this.#first = first;
  }

  loadContext(sessionId: string, leafId?: string | null): Promise<LoadedContext> {
    const first = this.#first;
    this.#first = undefined;
    if (first && leafId === undefined && first.header.id === sessionId) {
      return Promise.resolve(first);
    }
    return this.hosted.loadContext(sessionId, leafId);
  }

  load(sessionId: string): Promise<LoadedSession> {
    return this.hosted.load(sessionId);
  }

  list(): Promise<SessionInfo[]> {
    return Promise.resolve([]);
  }

  has(sessionId: string): Promise<boolean> {
    return this.hosted.has(sessionId);
  }

  create(header: SessionHeader, entries?: readonly SessionEntry[]): Promise<CreatedSession> {
    return this.hosted.create(header, entries);
  }

  append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    return this.hosted.append(sessionId, entries);
  }

  replace(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void> {
    return this.hosted.replace(header, entries);
  }

  updateHeader(header: SessionHeader): Promise<void> {
    return this.hosted.updateHeader(header);
  }

  delete(sessionId: string): Promise<void> {
    return this.hosted.delete(sessionId);
  }

  close(): Promise<void> {
    return this.hosted.close();
  }
}

/**
 * Open the export at `url`: its default leaf's context is read now (through its index when
 * it has one), which names the session.
 */
export async function openHostedExport(url: string): Promise<ResolvedSession> {
  const hosted = new HostedSessionStore({ url });
  const { context } = await hosted.readContext();
  return {
    store: new HostedViewerStore(hosted, context),
    sessionId: context.header.id,
    source: "browser",
  };
}
