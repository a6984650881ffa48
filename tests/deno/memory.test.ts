import { conformance } from "../conformance/mod.ts";
import { memorySubject } from "../conformance/faults.ts";

conformance((name, fn) => Deno.test(name, fn), memorySubject("memory"));
