/**
 * The shape every benchmark case has: named functions measured side by side in one
 * process (so their ratios share the machine's noise), or a reason one is unavailable.
 * @module
 */

/** Facts a measured function reports (counts, phase times in ms). */
export type Facts = Record<string, number | string | boolean | undefined>;

/** One measured operation. */
export type BenchFn = () => Promise<Facts | void>;

/** A set of operations measured together. */
export interface BenchCase {
  /** Name -> function, or a string saying why it is not available. */
  fns: Record<string, BenchFn | string>;
  /**
   * Warm-up versions of `fns` on a smaller input (same code paths, so the JIT is warm)
   * used for the warm-up rounds instead of `fns`: warming up on the 240 MB file would cost
   * a minute per round.
   */
  warmup?: Record<string, BenchFn | string>;
  /** Facts about the setup (import times, sizes). */
  info?: Facts;
  /**
   * False: no full collection before each timed call (`time` mode collects by default, so
   * one function's garbage is not billed to the next). For operations a user repeats back
   * to back, where a forced collection before each call is not what users see.
   */
  collectBetween?: boolean;
  /** Runs before every call of a function, untimed (a fresh start per round). */
  before?: (name: string) => Promise<void>;
  /** Runs once after all measurements. */
  teardown?: () => Promise<void>;
}
