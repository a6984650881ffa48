import { conformance } from "../conformance/mod.ts";
import { jsonlFsSubject } from "../jsonl/subjects.ts";

conformance((name, fn) => Deno.test(name, fn), jsonlFsSubject("jsonl (deno fs)"));
