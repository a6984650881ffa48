import { test } from "node:test";
import { MemorySessionStore } from "../../core.ts";
import { conformance } from "../conformance/mod.ts";

conformance((name, fn) => test(name, fn), {
  name: "memory (node)",
  open: async () => ({ store: new MemorySessionStore() }),
});
