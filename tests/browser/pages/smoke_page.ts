/**
 * Harness self-check: proves the runner, the reporting path and the isolation switch work,
 * and that a failing test reports its message.
 */
import { register, runRegisteredTests } from "../runner.ts";

const expectIsolated = new URLSearchParams(location.search).get("isolated") === "1";

register("smoke: page runs and reports", async () => {});
register("smoke: cross-origin isolation matches the server switch", async () => {
  if (globalThis.crossOriginIsolated !== expectIsolated) {
    throw new Error(`crossOriginIsolated is ${globalThis.crossOriginIsolated}`);
  }
});
register("smoke: OPFS is reachable", async () => {
  const root = await navigator.storage.getDirectory();
  await root.getDirectoryHandle("smoke", { create: true });
});
if (new URLSearchParams(location.search).has("fail")) {
  register("smoke: deliberate failure", async () => {
    throw new TypeError("deliberate");
  });
}

await runRegisteredTests();
