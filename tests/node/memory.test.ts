import { test } from "node:test";
import { conformance } from "../conformance/mod.ts";
import { memorySubject } from "../conformance/faults.ts";

conformance((name, fn) => test(name, fn), memorySubject("memory (node)"));
