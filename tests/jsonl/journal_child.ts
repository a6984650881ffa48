/**
 * Child process of the listing-journal kill test: over the folder `Deno.args[0]`, one store
 * appends an entry to one session after another and lists after each append, so the
 * listing cache's journal is rewritten again and again until the parent kills it.
 */
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { user } from "./helpers.ts";

const [dir, tag] = Deno.args;
const store = await openJsonlFsStore(dir);
const rows = await store.list({ includeInternal: true });
const tips = new Map<string, string | null>();
for (const row of rows) tips.set(row.id, (await store.load(row.id)).entries.at(-1)?.id ?? null);
console.log("ready");
for (let i = 0;; i++) {
  const id = rows[i % rows.length].id;
  const entryId = `${tag}${String(i).padStart(7, "0")}`;
  await store.append(id, [user(entryId, tips.get(id)!)]);
  tips.set(id, entryId);
  await store.list({ includeInternal: true });
}
