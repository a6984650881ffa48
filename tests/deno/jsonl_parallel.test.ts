/** The parallel checking pass on worker threads, in Deno (`tests/jsonl/parallel_cases.ts`). */
import { parallelScanCases } from "../jsonl/parallel_cases.ts";

parallelScanCases((name, fn) => Deno.test(name, fn), "jsonl parallel scan (deno)");
