/**
 * The first items of a branch's conversation from as little of the branch as decides them.
 * A 100k-entry branch is ~98k path entries; parsing all of them to show its first 30 items
 * is the whole load again. The items up to `end` are the same as the whole branch's when
 * the entries read so far answer every tool call among them and none of them is a tool
 * result standing alone (a call further on could still claim it): the entries after that
 * change only later items. So the branch is read in growing prefixes until the wanted
 * items are decided, or to its end (then the count is known too).
 *
 * @module
 */
import type { SessionEntry } from "../../src/schema.ts";
import { conversationItems, type ConvItem } from "./model.ts";

/** A branch read an entry at a time (root first), parsing only what is asked. */
export interface BranchReader {
  /** Entries on the branch. */
  readonly length: number;
  /** The entry at `index` on the branch (0 = the root). */
  entry(index: number): SessionEntry;
}

/** Items `[0, end)` of a branch's conversation, and its item count when the whole branch was read. */
export interface ConversationPrefix {
  items: ConvItem[];
  /** The conversation's item count, or `null` when the rest of the branch was not read. */
  total: number | null;
  /** Branch entries parsed to decide the items. */
  read: number;
}

/** Entries read first per wanted item (a reply and its tool results are a few entries). */
const ENTRIES_PER_ITEM = 4;

/** Whether items `[0, end)` of a prefix's conversation stay the same whatever follows it. */
function decided(items: readonly ConvItem[], end: number): boolean {
  if (items.length < end) return false;
  for (let i = 0; i < end; i++) {
    const item = items[i];
    if (item.kind === "tool") return false; // a standalone result a later call may claim
    for (const block of item.blocks) {
      if (block.type === "tool" && !block.result) return false; // its answer may follow
    }
  }
  return true;
}

/**
 * The conversation items `[0, end)` of `branch`, reading prefixes that grow fourfold.
 *
 * @example
 * ```ts
 * import { conversationPrefix } from "./prefix.ts";
 * const entries = [{ type: "message", id: "u", parentId: null, timestamp: "", message: { role: "user", content: "hi", timestamp: 0 } }];
 * const branch = { length: 1, entry: (i: number) => entries[i] as never };
 * conversationPrefix(branch, 30).total; // 1
 * ```
 */
export function conversationPrefix(branch: BranchReader, end: number): ConversationPrefix {
  const entries: SessionEntry[] = [];
  let take = Math.max(64, end * ENTRIES_PER_ITEM);
  for (;;) {
    const upTo = Math.min(take, branch.length);
    for (let i = entries.length; i < upTo; i++) entries.push(branch.entry(i));
    const items = conversationItems(entries);
    if (upTo === branch.length) {
      return { items: items.slice(0, end), total: items.length, read: entries.length };
    }
    if (decided(items, end)) return { items: items.slice(0, end), total: null, read: upTo };
    take *= 4;
  }
}
