/**
 * mu-sessions core: store, upgrade, navigate and project agent session transcripts (the
 * tree-shaped, append-only pi / Atomic session format, format 4). Runtime-agnostic: nothing
 * reachable from this entry uses a Deno, Node or DOM API, so it loads in Deno, Node,
 * browsers, workers and edge runtimes. Stores are passed explicitly (`MemorySessionStore`
 * here; persistent drivers under `@mu/sessions/stores/...`).
 *
 * @example
 * ```ts
 * import { SessionManager } from "@mu/sessions/core";
 * const manager = await SessionManager.inMemory("/project");
 * await manager.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * console.log(manager.buildSessionContext().messages.length); // 1
 * ```
 *
 * @module
 */
export * from "./src/errors.ts";
export * from "./src/schema.ts";
export * from "./src/jsonl.ts";
export * from "./src/migrate.ts";
export * from "./src/tree.ts";
export * from "./src/listing.ts";
export * from "./src/store.ts";
export { MemorySessionStore } from "./src/memory_store.ts";
export * from "./src/runtime.ts";
export * from "./src/projection.ts";
export * from "./src/transcript.ts";
export * from "./src/context_repair.ts";
export * from "./src/system_prompt.ts";
export * from "./src/manager.ts";
export * from "./src/session_view.ts";
export * from "./src/session_options.ts";
export * from "./src/usage.ts";
export * from "./src/context_entry.ts";
export * from "./src/validate_fast.ts";
export * from "./src/wellformed.ts";
