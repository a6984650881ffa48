/**
 * Persistence checks, one phase per page load: `?phase=write` stores two sessions in each
 * store named in `?stores=`, `?phase=verify` (after a reload, or after the browser was
 * closed and started again on the same profile) checks they are all there, byte for byte,
 * and `?phase=cleanup` deletes the storage. `?tag=` names the storage, so runs never meet.
 *
 * Session "closed" is written through a store that is then closed; session "open" through
 * one that is left open when the page goes away (a tab closed mid-use): both must survive.
 */
import {
  parseSessionJsonlSync,
  type SessionEntry,
  type SessionHeader,
  type SessionStore,
} from "../../../core.ts";
import { assert, assertEquals } from "../../conformance/assert.ts";
import { oddlySpelledSession } from "../../conformance/store_suite.ts";
import { register, reportFatal, runRegisteredTests } from "../runner.ts";
import { BROWSER_STORES } from "../subjects.ts";
import "../subjects_fsa.ts";

const params = new URLSearchParams(location.search);
const phase = params.get("phase") ?? "";
const tag = params.get("tag") ?? "default";

function message(id: string, parentId: string | null, role: string, text: string, n: number) {
  const timestamp = Date.UTC(2026, 2, 1, 0, 0, n);
  const content = role === "user" ? text : [{ type: "text", text }];
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(timestamp).toISOString(),
    message: { role, content, timestamp },
  } as unknown as SessionEntry;
}

/** The two sessions every phase agrees on: raw JSONL text as created, then one append. */
function expected(name: "closed" | "open") {
  const id = `persist-${name}-${tag}`;
  const text = name === "closed" ? oddlySpelledSession(id) : [
    `{"type":"session","version":4,"id":"${id}","createdAt":"2026-03-01T00:00:00.000Z","cwd":"/persist"}`,
    JSON.stringify(message("p0000001", null, "user", "left open", 1)),
  ].join("\n") + "\n";
  const parsed = parseSessionJsonlSync(text);
  const last = parsed.entries[parsed.entries.length - 1].id;
  const appended = message(`p${name === "closed" ? 1 : 2}000009`, last, "assistant", "kept", 9);
  return {
    id,
    header: parsed.header as SessionHeader,
    created: parsed.entries,
    appended,
    jsonl: text + JSON.stringify(appended) + "\n",
    entries: [...parsed.entries, appended],
  };
}

async function write(store: SessionStore, name: "closed" | "open"): Promise<void> {
  const session = expected(name);
  await store.create(session.header, session.created);
  await store.append(session.id, [session.appended]);
}

async function verify(store: SessionStore): Promise<void> {
  for (const name of ["closed", "open"] as const) {
    const session = expected(name);
    const loaded = await store.load(session.id);
    assertEquals(loaded.header, session.header, `${name}: header`);
    assertEquals(loaded.entries, session.entries, `${name}: entries`);
    if (store.exportJsonl) {
      assertEquals(await store.exportJsonl(session.id), session.jsonl, `${name}: export`);
    }
  }
  const ids = (await store.list()).map((row) => row.id);
  assert(ids.includes(expected("closed").id), `listed: ${ids.join(", ")}`);
  assert(ids.includes(expected("open").id), `listed: ${ids.join(", ")}`);
}

try {
  const wanted = (params.get("stores") ?? "").split(",").filter(Boolean);
  for (const name of wanted) {
    const kind = BROWSER_STORES[name];
    if (!kind) throw new Error(`unknown store "${name}"`);
    if (phase === "write") {
      register(`${name}: write two sessions`, async () => {
        await kind.removeNamed(tag);
        const first = await kind.openNamed(tag);
        await write(first, "closed");
        await first.close();
        await write(await kind.openNamed(tag), "open"); // deliberately never closed
      });
    } else if (phase === "verify") {
      register(`${name}: both sessions are there, byte for byte`, async () => {
        const store = await kind.openNamed(tag);
        try {
          await verify(store);
        } finally {
          await store.close();
        }
      });
    } else if (phase === "cleanup") {
      register(`${name}: remove the storage`, () => kind.removeNamed(tag));
    } else {
      throw new Error(`unknown phase "${phase}"`);
    }
  }
  await runRegisteredTests({ timeoutMs: 30_000 });
} catch (error) {
  await reportFatal(error);
}
