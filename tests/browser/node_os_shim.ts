/**
 * playwright-core calls `os.homedir()` and `os.release()` while loading and launching, and
 * probes `/proc/sys/fs/binfmt_misc/WSLInterop` at import (its bundled `is-wsl`). Under
 * Deno the first two need `--allow-sys` and the probe needs `--allow-all`, which the test
 * tasks do not grant (read/write/env/run/net). The answers are cheap to give without them,
 * so this module replaces the two os functions and defers the WSL probe (is-wsl's own
 * `__IS_WSL_TEST__` switch; the result only matters for opening desktop apps, which the
 * tests never do) before playwright-core is imported. Import it first.
 *
 * @example
 * ```ts
 * import "./node_os_shim.ts"; // before "playwright-core"
 * ```
 *
 * @module
 */
import os from "node:os";

const patched = os as unknown as Record<string, unknown>;

function hasSysPermission(name: "homedir" | "osRelease"): boolean {
  return Deno.permissions.querySync({ name: "sys", kind: name }).state === "granted";
}

if (!hasSysPermission("homedir")) {
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/tmp";
  patched.homedir = () => home;
}
if (!hasSysPermission("osRelease")) {
  // Only used to detect WSL; the kernel release is readable without sys access on Linux.
  let release = "";
  try {
    release = Deno.readTextFileSync("/proc/sys/kernel/osrelease").trim();
  } catch {
    // Not Linux, or /proc is hidden: an empty release simply means "not WSL".
  }
  patched.release = () => release;
}

// is-wsl evaluates lazily when this is set; the harness removes it again after import.
if (Deno.env.get("__IS_WSL_TEST__") === undefined) Deno.env.set("__IS_WSL_TEST__", "deferred");
