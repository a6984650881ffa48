import { conformance } from "../conformance/mod.ts";
import { openJsonlFsaStore } from "../../stores/jsonl/fsa.ts";
import { FakeDirectoryHandle } from "../jsonl/fake_fsa.ts";

conformance((name, fn) => Deno.test(name, fn), {
  name: "jsonl (fsa, in-memory fake)",
  open: async () => {
    const root = new FakeDirectoryHandle();
    return {
      store: openJsonlFsaStore(root.asHandle()),
      reopen: async () => openJsonlFsaStore(root.asHandle()),
    };
  },
});
