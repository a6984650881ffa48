/** The parallel checking pass on worker threads, in Node (`tests/jsonl/parallel_cases.ts`). */
import { test } from "node:test";
import { parallelScanCases } from "../jsonl/parallel_cases.ts";

parallelScanCases((name, fn) => test(name, fn), "jsonl parallel scan (node)");
