/**
 * Paging a leaf's projection for the context view, shared by a fully loaded session
 * (`opened_session.ts`) and the context-only first look at one (`session_handle.ts`).
 *
 * @module
 */
import type { ContextAs, ContextPageView } from "../types.ts";
import { contextPage, projectionItems } from "./context_page.ts";
import { describeMessage } from "./describe.ts";
import { olderAgentProjection } from "./older_agent.ts";

type Json = Record<string, unknown>;

/**
 * Pages of one leaf's projection and of its older-agent reading, cached for the last leaf
 * asked: shared by a fully loaded session and by the context-only first look at one
 * (`session_handle.ts`), which differ only in where the projection comes from.
 *
 * @example
 * ```ts
 * import { ContextPages } from "./context_pages.ts";
 * const pages = new ContextPages(() => ({ entries: [], messages: [] }));
 * pages.context(null, 0, 50).total; // 0
 * ```
 */
export class ContextPages {
  #older?: { leafId: string | null; value: Json | undefined };

  /** `projection(leafId)` answers the projection (cached by its owner, or cheap). */
  constructor(readonly projection: (leafId: string | null) => Json) {}

  /** The projection as a format-3 agent would have built it (see `older_agent.ts`). */
  olderAgent(leafId: string | null): Json | undefined {
    const projection = this.projection(leafId);
    if (!this.#older || this.#older.leafId !== leafId) {
      this.#older = { leafId, value: olderAgentProjection(projection) };
    }
    return this.#older.value;
  }

  #projectionAs(leafId: string | null, as: ContextAs | undefined): Json {
    if (as !== "older-agent") return this.projection(leafId);
    const older = this.olderAgent(leafId);
    if (!older) throw new RangeError("this branch has no retired summary compaction");
    return older;
  }

  /** A page of the projected context (or of the older agent's reading of it). */
  context(leafId: string | null, start: number, count: number, as?: ContextAs): ContextPageView {
    const page = contextPage(this.#projectionAs(leafId, as), leafId, start, count);
    if (as === undefined) {
      // The older reading starts with the retired record; cached per leaf, so a page of a
      // long session does not scan it again.
      const older = projectionItems(this.olderAgent(leafId) ?? {})[0];
      const retired = older?.sourceEntry as Json | undefined;
      if (retired) {
        page.retired = {
          id: String(retired.id),
          firstKeptEntryId: typeof retired.firstKeptEntryId === "string"
            ? retired.firstKeptEntryId
            : null,
        };
      }
    }
    return page;
  }

  /** The whole text of one block of the projected context. */
  contextBlock(
    leafId: string | null,
    item: number,
    message: number,
    block: number,
    as?: ContextAs,
  ): string {
    const items = projectionItems(this.#projectionAs(leafId, as));
    const messages = items[item]?.messages as Json[] | undefined;
    const target = messages?.[message];
    const view = target ? describeMessage(target, Infinity).blocks[block] : undefined;
    if (!view || !("text" in view)) throw new RangeError("no such block in the projection");
    return view.text;
  }
}
