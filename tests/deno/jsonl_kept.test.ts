/** The session file kept open across a burst of appends, in Deno (`tests/jsonl/kept_cases.ts`). */
import { keptFileCases } from "../jsonl/kept_cases.ts";

keptFileCases((name, fn) => Deno.test(name, fn), "jsonl kept file (deno)");
