/** The JSONL resume index, in Node (`tests/jsonl/resume_cases.ts`). */
import { test } from "node:test";
import { resumeIndexCases } from "../jsonl/resume_cases.ts";

resumeIndexCases((name, fn) => test(name, fn), "jsonl resume index (node)");
