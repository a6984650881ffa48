/** Test data for the sync tests: a linear run of user messages with readable ids. */
import type { SessionEntry } from "../../schema.ts";
import { userEntry } from "./store_suite.ts";

/** `count` messages `${prefix}-0`, `${prefix}-1`, ..., each the child of the one before. */
export function chain(
  count: number,
  prefix: string,
  parentId: string | null = null,
): SessionEntry[] {
  const entries: SessionEntry[] = [];
  for (let i = 0; i < count; i++) {
    entries.push(userEntry(`${prefix} ${i}`, entries.at(-1)?.id ?? parentId, `${prefix}-${i}`));
  }
  return entries;
}
