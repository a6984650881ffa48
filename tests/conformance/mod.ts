/**
 * The one conformance suite: every SessionStore driver runs it, in every runtime the
 * driver supports (as unstorage runs one testDriver() over every driver).
 *
 * ```ts
 * import { conformance } from "../conformance/mod.ts";
 * conformance((name, fn) => Deno.test(name, fn), { name: "memory", open: async () => ({ store: new MemorySessionStore() }) });
 * ```
 */
import type { Register, StoreSubject } from "./harness.ts";
import { contractSuite } from "./contract_suite.ts";
import { managerSuite } from "./manager_suite.ts";
import { searchSuite } from "./search_suite.ts";
import { storeSuite } from "./store_suite.ts";
import { valuesSuite } from "./values_suite.ts";

export type { OpenedStore, Register, StoreSubject } from "./harness.ts";

export function conformance(register: Register, subject: StoreSubject): void {
  storeSuite(register, subject);
  contractSuite(register, subject);
  valuesSuite(register, subject);
  managerSuite(register, subject);
  searchSuite(register, subject);
}
