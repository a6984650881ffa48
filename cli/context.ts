/**
 * What every `mu` command is handed: where to write, the caller's directory and
 * environment, and how to ask a yes/no question. Commands never touch `process` or `Deno`
 * directly, so tests run them in-process or as a subprocess alike.
 *
 * @module
 */
import { resolve } from "node:path";

/** Exit codes of every command: 0 ok, 1 failure or defects found, 2 usage error. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A command-line usage error (unknown flag, missing value or argument): exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The process around a command. */
export interface CliContext {
  /** Write to standard output (text as given; add newlines yourself). */
  out(text: string): void;
  /** Write to standard error. */
  err(text: string): void;
  /** The caller's working directory: every path argument is resolved against it. */
  cwd: string;
  /** The environment (`PI_CODING_AGENT_DIR`, `HOME`, ...). */
  env: Readonly<Record<string, string | undefined>>;
  /** Whether standard error is a terminal (progress bars are drawn only then). */
  stderrIsTTY: boolean;
  /** Ask a question on the terminal and resolve with the answer line (empty at end of input). */
  ask(question: string): Promise<string>;
  /**
   * Call `handler` on Ctrl-C (SIGINT) or SIGTERM instead of dying, for a long-running
   * command that must save its state first; returns the undo. Absent: no signals here.
   */
  onInterrupt?(handler: () => void): () => void;
}

/** A path argument, resolved against the caller's directory (not the repo or the script). */
export function resolvePath(context: CliContext, path: string): string {
  return resolve(context.cwd, path);
}
