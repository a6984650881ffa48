import { conformance } from "../conformance/mod.ts";
import { jsonlFsaFakeSubject } from "../jsonl/subjects.ts";

conformance((name, fn) => Deno.test(name, fn), jsonlFsaFakeSubject("jsonl (fsa, in-memory fake)"));
