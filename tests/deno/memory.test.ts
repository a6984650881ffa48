import { MemorySessionStore } from "../../core.ts";
import { conformance } from "../conformance/mod.ts";

conformance((name, fn) => Deno.test(name, fn), {
  name: "memory",
  open: async () => ({ store: new MemorySessionStore() }),
});
