/**
 * The 100k session through `mu serve` (`deno task bench --only=serve`, not in the default
 * run): what the viewer's "This computer" tab waits for. Each call starts from a server
 * that has not seen the session (a fresh store and API handler; the JSONL store's resume
 * index is left from the warm-up, as after any earlier open), and speaks to the API
 * handler (`web/api/routes.ts`) through `HttpSessionStore`, the client the viewer's worker
 * uses, in process (no sockets: the server's own work is measured, not the loopback):
 *
 * - "first conversation page": what the Conversation tab (where a session opens) waits
 *   for: the worker's first look (`SessionHandle.open`: the context-only load and the
 *   listing row) and the conversation's first page, which the server answers from the
 *   start of the branch (`/api/sessions/:id/conversation`), with the branch entries it read;
 * - "first context page": what the Context tab waits for: the first look, `loadContext`
 *   (the context-only load, `/api/sessions/:id/loaded-context`), its projection and the
 *   listing row;
 * - "first tree rows": what the Tree tab waits for: the first look and the tree's size
 *   with the 200 rows around the leaf (`treeMs`: that ask alone, after the first look), which the server draws from the session it keeps
 *   open (`/api/sessions/:id/tree`: ids and parents, those rows' entries and the labels);
 * - "first entries page": the first page of 2,000 entries (`/api/sessions/:id`), which
 *   the tree and the raw pane wait for;
 * - "every page": the whole session in the API's 50 pages (`HttpSessionStore.load`),
 *   with the number of times the server opened the session as a fact;
 * - "one full load": `store.load` of the session, what every page cost before the server
 *   kept sessions open (so the old "every page" was 50 of these).
 *
 * @module
 */
import { projectLoadedContext } from "../../src/context_load.ts";
import type { SessionStore } from "../../src/store.ts";
import { HttpSessionStore } from "../../stores/http/store.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { SessionPages } from "../../web/api/session_pages.ts";
import { CONV_PAGE } from "../../web/conversation/model.ts";
import { type ConversationServer, SessionHandle } from "../../web/worker/session_handle.ts";
import { jsonlDriver, type Maybe, sqliteDriver, type StoreDriver } from "../drivers.ts";
import type { Row } from "../jobs.ts";
import type { Evaluation } from "../targets.ts";
import type { BenchCase, BenchFn, Facts } from "./types.ts";

/** The parameters of the open case this one reuses. */
export interface ServeParams {
  dir: string;
  sqliteDb?: string;
  sessionId: string;
}

const STEPS = [
  "first conversation page",
  "first context page",
  "first tree rows",
  "first entries page",
  "every page",
  "one full load",
] as const;
type Step = typeof STEPS[number];

const elapsed = (since: number) => performance.now() - since;
/** Where the in-process client believes the server is (no socket is opened). */
const BASE = "http://127.0.0.1:8787/";

/** A fresh store and API over `where`, a client over it, and the server's open counter. */
async function server(driver: StoreDriver, where: string) {
  const store = await driver.open(where) as SessionStore;
  const pages = new SessionPages(store);
  const api = createSessionApi({ store, pages });
  const client = new HttpSessionStore({
    baseUrl: BASE,
    fetch: async (request) => (await api(request)) ?? new Response(null, { status: 404 }),
  });
  return { store, pages, api, client };
}

/** The server's conversation pages as the viewer's worker asks for them, in process. */
function conversationServer(
  api: (request: Request) => Promise<Response | undefined>,
): ConversationServer {
  return {
    async serverConversation(sessionId, leafId, offset, limit) {
      const url = new URL(`${BASE}api/sessions/${encodeURIComponent(sessionId)}/conversation`);
      url.search = new URLSearchParams({ offset: `${offset}`, limit: `${limit}` }).toString();
      if (leafId !== undefined) url.searchParams.set("leaf", leafId);
      return await (await api(new Request(url)))!.json();
    },
    async serverTree(sessionId, page) {
      const url = new URL(`${BASE}api/sessions/${encodeURIComponent(sessionId)}/tree`);
      url.searchParams.set("limit", `${page.count}`);
      if (page.leafId !== null) url.searchParams.set("leaf", page.leafId);
      return await (await api(new Request(url)))!.json();
    },
  };
}

function stepFn(driver: StoreDriver, where: string, sessionId: string, step: Step): BenchFn {
  return async (): Promise<Facts> => {
    const { store, pages, api, client } = await server(driver, where);
    try {
      const t = performance.now();
      if (step === "first conversation page") {
        const handle = await SessionHandle.open(client, sessionId, conversationServer(api));
        const leaf = handle.overview().defaultLeafId;
        const page = await handle.conversation(leaf, 0, CONV_PAGE);
        return { loadMs: elapsed(t), items: page.items.length, partial: page.partial === true };
      }
      if (step === "first tree rows") {
        const handle = await SessionHandle.open(client, sessionId, conversationServer(api));
        const leafId = handle.overview().defaultLeafId;
        const asked = performance.now();
        const tree = await handle.treeStart({ leafId, count: 200 });
        return {
          loadMs: elapsed(t),
          treeMs: elapsed(asked),
          rows: tree?.rows.length ?? "no shape",
          rowCount: tree?.rowCount ?? 0,
          labels: tree?.rows.filter((row) => row.label !== undefined).length ?? 0,
          opens: pages.opens,
        };
      }
      if (step === "first context page") {
        const loaded = await client.loadContext(sessionId);
        const projection = projectLoadedContext(loaded);
        const loadContextMs = elapsed(t);
        const row = (await client.list({ includeInternal: true })).find((s) => s.id === sessionId);
        return {
          loadMs: elapsed(t),
          loadContextMs,
          messages: projection?.messages.length ?? "undecided",
          listed: row !== undefined,
        };
      }
      if (step === "first entries page") {
        const url = `${BASE}api/sessions/${encodeURIComponent(sessionId)}`;
        const page = await (await api(new Request(`${url}?offset=0&limit=2000`)))!.json();
        return { loadMs: elapsed(t), entries: page.entries.length, opens: pages.opens };
      }
      if (step === "one full load") {
        const { entries } = await store.load(sessionId);
        return { loadMs: elapsed(t), entries: entries.length };
      }
      const { entries } = await client.load(sessionId);
      return { loadMs: elapsed(t), entries: entries.length, opens: pages.opens };
    } finally {
      await store.close();
    }
  };
}

/** The case: the steps over the JSONL folder and over the prepared SQLite database. */
export async function serveCase(params: ServeParams): Promise<BenchCase> {
  const fns: Record<string, Maybe<BenchFn>> = {};
  const stores: [string, Maybe<StoreDriver>, string | undefined][] = [
    ["jsonl", await jsonlDriver(), params.dir],
    ["sqlite", await sqliteDriver(), params.sqliteDb],
  ];
  for (const [kind, driver, where] of stores) {
    for (const step of STEPS) {
      fns[`${kind} ${step}`] = typeof driver === "string"
        ? driver
        : where === undefined
        ? "no SQLite database was prepared"
        : stepFn(driver, where, params.sessionId, step);
    }
  }
  return { fns };
}

/** First conversation and context pages within a second, per store; the rest is reported. */
export function serveTargets(rows: Row[]): Evaluation[] {
  const out: Evaluation[] = [];
  for (const row of rows.filter((r) => r.section === "serve")) {
    const judged = row.name.endsWith("first conversation page") ||
      row.name.endsWith("first context page");
    const entry: Evaluation = {
      id: `serve-${row.name}`,
      label: `\`mu serve\`: ${row.name}`,
      runtime: row.runtime,
      subject: row.subject,
      target: judged ? "≤ 1 s" : "reported",
      measured: row.error ?? row.unavailable ?? "not measured",
      met: null,
    };
    if (row.medianMs !== undefined) {
      entry.value = row.medianMs;
      const opens = row.facts?.opens === undefined ? "" : `, ${row.facts.opens} open(s)`;
      entry.measured = `${row.medianMs.toFixed(0)} ms${opens}`;
      if (judged) entry.met = row.medianMs <= 1000;
    }
    out.push(entry);
  }
  return out;
}
