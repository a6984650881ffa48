/**
 * Lock files kept across a burst of writes. Taking a lock file costs four
 * directory changes (temp owner file, hard link, two unlinks), and on ext4 a durable
 * append's `fsync` then also commits them, which made a lock per append several times the
 * cost of the write itself (the bench's append rows). So a released lock
 * is first *parked*: its file stays, the process's in-memory queue is free, and the next
 * acquisition of the same path in this process takes it over with no file operation. It
 * is removed for real once the process goes idle (the next timer turn: a run of appends
 * awaited one after another never gets there), when it has been held since
 * {@link maxHoldMs} ago (so the `staleMs` rule and other processes' turns still hold),
 * when the store closes, and at process exit.
 *
 * Nothing changes for other processes: the lock file is the same file with the same owner
 * throughout, refreshed as before; a process killed with a lock parked leaves a lock whose
 * owner is judged gone, exactly as one killed mid-append did.
 *
 * @module
 */
import process from "node:process";

/**
 * A lock file this process holds (or has parked).
 *
 * @example
 * ```ts
 * import type { HeldLock } from "./_park.ts";
 * declare const held: HeldLock;
 * console.log(held.path, Date.now() - held.since);
 * ```
 */
export interface HeldLock {
  path: string;
  /** When the file was created (ms): the hold bound counts from here. */
  since: number;
  /** False where the file cannot be recognised later (no inode reported): never parked. */
  parkable: boolean;
  /** Whether the lock file is still the one created (same inode, mtime as last set). */
  stillMine(): boolean;
  /** Forget it without touching the file (it is no longer ours). */
  drop(): void;
  /** Remove the file (if it is still this process's) and stop refreshing it. */
  remove(): void;
  /**
   * The session file kept open with the lock (`_kept.ts`): closed when the lock is removed
   * or dropped, never while it is held or parked.
   */
  kept?: { close(): void };
  /** Held right now (acquired or taken over, not yet released or parked). */
  inUse?: boolean;
}

/**
 * This process's locks with a file kept or held at least once, by lock path, until they are
 * removed or dropped (entries stay while parked: a burst sets a flag, not a map entry).
 */
const known = new Map<string, HeldLock>();

/**
 * Note `held` as held (`true`: acquired or taken over) or no longer (`false`: released).
 *
 * @example
 * ```ts
 * import { markHeld, type HeldLock } from "./_park.ts";
 * declare const held: HeldLock;
 * markHeld(held, true);
 * ```
 */
export function markHeld(held: HeldLock, inUse: boolean): void {
  held.inUse = inUse;
  if (inUse && known.get(held.path) !== held) known.set(held.path, held);
}

/**
 * The lock this process holds right now on lock path `path` (not a parked one).
 *
 * @example
 * ```ts
 * import { heldNow } from "./_park.ts";
 * heldNow("/tmp/s.jsonl.lock"); // undefined: not held
 * ```
 */
export function heldNow(path: string): HeldLock | undefined {
  const held = known.get(path);
  return held?.inUse ? held : undefined;
}

/**
 * The lock `held` is being given up (removed or dropped): close the session file kept with
 * it, if any, and forget it.
 *
 * @example
 * ```ts
 * import { closeKept, type HeldLock } from "./_park.ts";
 * declare const held: HeldLock;
 * closeKept(held);
 * ```
 */
export function closeKept(held: HeldLock): void {
  held.inUse = false;
  if (known.get(held.path) === held) known.delete(held.path);
  const kept = held.kept;
  held.kept = undefined;
  try {
    kept?.close();
  } catch {
    // already closed: nothing is lost, every append through it has returned
  }
}

/**
 * How long one lock file may be kept, counted from its creation: a quarter of the stale
 * bound (so a hold can never look stale to others), at most one second (so writers in
 * other processes get their turn between bursts).
 *
 * @example
 * ```ts
 * import { maxHoldMs } from "./_park.ts";
 * maxHoldMs(30_000); // 1000
 * ```
 */
export function maxHoldMs(staleMs: number): number {
  return Math.min(1_000, Math.floor(staleMs / 4));
}

const parked = new Map<string, HeldLock>();
/**
 * The idle timer of each lock parked since the last timer turn. It is left running when the
 * lock is taken over, so a burst of appends arms one timer, not one per append (in Deno a
 * `setTimeout` and its `clearTimeout` cost about as much as a `stat`).
 */
const idleTimers = new Map<HeldLock, ReturnType<typeof setTimeout>>();
/** Paths whose lock was given up at the hold bound, and until when to leave them free. */
const handedOver = new Map<string, number>();

/**
 * How long a lock given up at the hold bound stays free for other processes before this
 * one takes it again: longer than their longest poll interval (8 ms, plus up to half as
 * jitter), so a waiting writer gets its turn between two bursts instead of starving.
 */
export const HAND_OVER_MS = 20;
let exitHooked = false;

/** Removes every parked lock; synchronous, so it also runs inside exit handlers. */
function removeAll(): void {
  for (const held of [...parked.values()]) {
    parked.delete(held.path);
    clearTimeout(idleTimers.get(held));
    idleTimers.delete(held);
    held.remove(); // removes the file only if it is still this process's
  }
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  // Node, and Deno ending normally or via process.exit: 'exit' runs synchronous code.
  process.on("exit", removeAll);
  // Deno.exit() skips node:process 'exit' but dispatches 'unload'.
  const target = globalThis as { addEventListener?: (type: string, fn: () => void) => void };
  if ("Deno" in globalThis && typeof target.addEventListener === "function") {
    target.addEventListener("unload", removeAll);
  }
}

/**
 * Keep `held` for the next acquisition of its path in this process, or remove it now when
 * it is too old ({@link maxHoldMs}). Called with the in-process queue about to be freed.
 *
 * @example
 * ```ts
 * import { park, type HeldLock } from "./_park.ts";
 * declare const held: HeldLock;
 * park(held, 1_000);
 * ```
 */
export function park(held: HeldLock, holdMs: number): void {
  if (!held.parkable) return held.remove();
  if (Date.now() - held.since >= holdMs) {
    handedOver.set(held.path, Date.now() + HAND_OVER_MS);
    return held.remove();
  }
  hookExit();
  parked.set(held.path, held);
  if (idleTimers.has(held)) return; // armed by an earlier append of this burst
  // A timer, not a microtask: appends awaited back to back run entirely in microtasks (their
  // file calls are synchronous), so they reach this timer only once the burst is over. Held
  // again when it fires (an operation spanning a timer turn): the next park arms a new one.
  idleTimers.set(
    held,
    setTimeout(() => {
      idleTimers.delete(held);
      if (parked.get(held.path) !== held) return;
      parked.delete(held.path);
      held.remove();
    }, 0),
  );
}

/**
 * The parked lock of `path`, now held again by the caller (who holds the in-process queue),
 * or undefined (none, or the file is no longer the one this process created).
 *
 * @example
 * ```ts
 * import { take } from "./_park.ts";
 * const held = take("/tmp/s.jsonl.lock"); // undefined: nothing parked
 * ```
 */
export function take(path: string): HeldLock | undefined {
  const held = parked.get(path);
  if (!held) return undefined;
  parked.delete(path); // its idle timer keeps running: see idleTimers
  // Checked, not assumed: a parked lock cannot turn stale (see maxHoldMs), but a person or
  // another tool may have removed or rewritten the file meanwhile; then it is not ours.
  if (held.stillMine()) return held;
  held.drop();
  return undefined;
}

/**
 * How many ms a new lock on `path` should wait to let other processes in (see
 * {@link HAND_OVER_MS}); 0 almost always.
 *
 * @example
 * ```ts
 * import { handOverWait } from "./_park.ts";
 * handOverWait("/tmp/s.jsonl.lock"); // 0
 * ```
 */
export function handOverWait(path: string): number {
  const until = handedOver.get(path);
  if (until === undefined) return 0;
  const left = until - Date.now();
  if (left <= 0) handedOver.delete(path);
  return Math.max(0, left);
}

/**
 * Remove every parked lock now (a store closing, tests).
 *
 * @example
 * ```ts
 * import { releaseParked } from "./_park.ts";
 * releaseParked();
 * ```
 */
export function releaseParked(): void {
  removeAll();
}
