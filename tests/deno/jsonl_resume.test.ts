/** The JSONL resume index, in Deno (`tests/jsonl/resume_cases.ts`). */
import { resumeIndexCases } from "../jsonl/resume_cases.ts";

resumeIndexCases((name, fn) => Deno.test(name, fn), "jsonl resume index (deno)");
