/**
 * The conversation tab's pane, loaded on first use. Separate from `session.ts` so the
 * dynamic import stays the one place the conversation code (markdown, grammars, diff) is
 * pulled in; the session page only asks for a pane.
 *
 * @module
 */
import type { ConversationList } from "../conversation/list.ts";
import type { ContextSource } from "./context.ts";

/**
 * The conversation list of a branch, paged from the worker. Its code (markdown, grammars,
 * diff: most of the page's script) loads the first time the tab is opened.
 * `afterFirstPage`: the session is not loaded yet (see `ConversationSource.afterFirstPage`).
 */
export async function conversationPane(
  source: ContextSource,
  afterFirstPage = false,
): Promise<ConversationList> {
  const { ConversationList } = await import("../conversation/list.ts");
  const { client, sessionId, leafId } = source;
  return new ConversationList({
    page: (start, count) => client.call("conversation", sessionId, leafId, start, count),
    summary: () => client.call("branchSummary", sessionId, leafId),
    outline: () => client.call("conversationOutline", sessionId, leafId),
    total: () => client.call("conversationTotal", sessionId, leafId),
    afterFirstPage,
  });
}
