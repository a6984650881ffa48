/** The session file kept open across a burst of appends, in Node (`tests/jsonl/kept_cases.ts`). */
import { test } from "node:test";
import { keptFileCases } from "../jsonl/kept_cases.ts";

keptFileCases((name, fn) => test(name, fn), "jsonl kept file (node)");
