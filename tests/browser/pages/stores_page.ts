/**
 * Runs the conformance suite in the browser for the stores named in `?stores=` (comma
 * separated names from `BROWSER_STORES`), plus the driver-specific cases (IndexedDB chunks,
 * the SQLite worker's channel and VFS choice).
 */
import { conformance } from "../../conformance/mod.ts";
import { indexedDbBehaviour } from "../../deno/indexeddb_cases.ts";
import { register, reportFatal, runRegisteredTests } from "../runner.ts";
import { BROWSER_STORES } from "../subjects.ts";
import { sqliteWorkerCases } from "../worker_cases.ts";
import "../subjects_fsa.ts";

try {
  const wanted = (new URLSearchParams(location.search).get("stores") ?? "").split(",");
  for (const name of wanted.filter(Boolean)) {
    const store = BROWSER_STORES[name];
    if (!store) throw new Error(`unknown store "${name}"`);
    conformance(register, store.subject());
    if (name === "indexeddb") indexedDbBehaviour(register, () => indexedDB);
    if (name === "sqlite-sahpool") sqliteWorkerCases(register, "opfs-sahpool");
    if (name === "sqlite-opfs") sqliteWorkerCases(register, "opfs");
  }
  await runRegisteredTests({ timeoutMs: 30_000 });
} catch (error) {
  await reportFatal(error);
}
