/**
 * The worker's two session sources: this browser's own store, and, when the page is
 * served by `mu serve`, "this computer" (the server's store, read through its API with
 * {@link HttpSessionStore}; nothing is copied until the user keeps a copy).
 *
 * @module
 */
import { SessionNotFoundError } from "../../src/errors.ts";
import type { SessionInfo } from "../../src/_listing.ts";
import type { SessionStore } from "../../src/store.ts";
import { HttpSessionStore, isSessionServer } from "../../stores/http/store.ts";
import {
  hostedExportUrl,
  parseSessionKey,
  sessionKey,
  type SessionSource,
} from "../session_key.ts";
import { openHostedExport } from "./hosted.ts";
import type { SessionRowView, TreeStartView } from "../types.ts";
import type { TreePage } from "./tree_shape.ts";
import type { ConvItem } from "../conversation/model.ts";
import { ENTRY_PROGRESS_HEADER } from "../api/http.ts";
import type { ImportSource } from "./importer.ts";

/** A session key resolved to its store. */
export interface ResolvedSession {
  store: SessionStore;
  sessionId: string;
  source: SessionSource;
}

/** Resolves keys (`session_key.ts`) to the browser's store or the server's. */
export class ViewerSources {
  #computer: Promise<HttpSessionStore | undefined> | undefined;
  /** The hosted export last opened (one at a time, as the worker keeps one session open). */
  #hosted: { key: string; resolved: Promise<ResolvedSession> } | undefined;

  /**
   * `onLoadProgress(sessionKey, entries, total)` is told of each entry page a computer
   * session's full load receives.
   */
  constructor(
    readonly browser: () => Promise<SessionStore>,
    readonly origin: string,
    readonly onLoadProgress?: (key: string, entries: number, total: number) => void,
  ) {}

  /** The server's store, when the page came from `mu serve` (asked once). */
  computer(): Promise<HttpSessionStore | undefined> {
    this.#computer ??= isSessionServer(this.origin).then((yes) =>
      yes
        ? new HttpSessionStore({ baseUrl: this.origin, fetch: (request) => this.#fetch(request) })
        : undefined
    );
    return this.#computer;
  }

  /** `fetch`, reporting the entry pages of a full load as they arrive. */
  async #fetch(request: Request): Promise<Response> {
    const response = await fetch(request);
    const progress = response.headers.get(ENTRY_PROGRESS_HEADER)?.match(/^(\d+)\/(\d+)$/);
    const id = new URL(request.url).pathname.match(/^\/api\/sessions\/([^/]+)$/)?.[1];
    if (this.onLoadProgress && response.ok && progress && id !== undefined) {
      const key = sessionKey("computer", decodeURIComponent(id));
      this.onLoadProgress(key, Number(progress[1]), Number(progress[2]));
    }
    return response;
  }

  /** The store of a source (rejects for "computer" on a plain static site). */
  async store(source: SessionSource): Promise<SessionStore> {
    if (source === "browser") return await this.browser();
    const computer = await this.computer();
    if (!computer) {
      throw new SessionNotFoundError("", "This page is not served by mu serve: no computer source");
    }
    return computer;
  }

  /** The store and session id a key names. */
  async resolve(key: string): Promise<ResolvedSession> {
    const url = hostedExportUrl(key);
    if (url !== undefined) {
      if (this.#hosted?.key !== key) {
        const resolved = openHostedExport(url);
        this.#hosted = { key, resolved };
        resolved.catch(() => this.#hosted?.resolved === resolved && (this.#hosted = undefined));
      }
      return await this.#hosted.resolved;
    }
    const { source, sessionId } = parseSessionKey(key);
    return { store: await this.store(source), sessionId, source };
  }

  /**
   * Conversation items of a computer session's branch, answered by the server from the
   * part of the branch they need (`GET /api/sessions/:id/conversation`): the first page of
   * a large session without loading it into the worker first.
   */
  async serverConversation(
    sessionId: string,
    leafId: string | undefined,
    offset: number,
    limit: number,
  ): Promise<{ leafId: string | null; items: ConvItem[]; total: number | null }> {
    return await this.#serverJson(sessionId, "conversation", {
      ...(leafId !== undefined ? { leaf: leafId } : {}),
      offset: String(offset),
      limit: String(limit),
    });
  }

  /**
   * Rows of a computer session's tree, answered by the server from the session it keeps
   * open (`GET /api/sessions/:id/tree`): the tree before the session is loaded here.
   */
  async serverTree(sessionId: string, page: TreePage): Promise<TreeStartView | null> {
    return await this.#serverJson(sessionId, "tree", {
      ...(page.leafId !== null ? { leaf: page.leafId } : {}),
      ...(page.focusId !== undefined ? { focus: page.focusId } : {}),
      ...(page.start !== undefined ? { offset: String(page.start) } : {}),
      limit: String(page.count),
    });
  }

  /** The JSON answer of `GET /api/sessions/:id/<route>?<params>`; an error status throws. */
  async #serverJson<T>(sessionId: string, route: string, params: Record<string, string>) {
    const url = new URL(`api/sessions/${encodeURIComponent(sessionId)}/${route}`, this.origin);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const response = await fetch(url);
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      throw new Error(
        body?.message ?? `the server answered ${response.status} ${response.statusText}`,
      );
    }
    return body as T;
  }

  /** A computer session as an import source for the browser's store. */
  async copySource(key: string): Promise<ImportSource> {
    const { store, sessionId, source } = await this.resolve(key);
    if (source !== "computer") throw new SessionNotFoundError(sessionId, "Not a computer session");
    const bytes = new TextEncoder().encode(
      await (store as HttpSessionStore).exportJsonl(sessionId),
    );
    return {
      path: `this computer: ${sessionId}`,
      size: bytes.byteLength,
      open: async () => new Blob([bytes]).stream(),
    };
  }
}

/** One list row of a listed session. */
export function rowView(info: SessionInfo, source: SessionSource): SessionRowView {
  const row: SessionRowView = {
    id: info.id,
    key: sessionKey(source, info.id),
    source,
    title: info.name ?? info.summary ?? info.firstMessage,
    titleSource: info.name !== undefined
      ? "name"
      : info.summary !== undefined
      ? "summary"
      : "first message",
    cwd: info.cwd,
    created: info.created.getTime(),
    modified: info.modified.getTime(),
    messageCount: info.messageCount,
    internal: info.internal === true,
  };
  if (info.workflow) row.workflow = `${info.workflow.runId} / ${info.workflow.stageName}`;
  if (info.parentSessionId) row.parentSessionId = info.parentSessionId;
  return row;
}
