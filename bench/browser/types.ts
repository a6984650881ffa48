/**
 * The parts of playwright-core and of `tests/browser/harness.ts` the browser benchmarks
 * use. The harness is imported by URL at run time (so a missing or broken harness is
 * "not available" rather than a type error), hence these local shapes.
 * @module
 */

/** A page; functions are serialised and run in the page (no closures over bench code). */
export interface Page {
  addInitScript(script: string): Promise<void>;
  goto(url: string): Promise<unknown>;
  setInputFiles(selector: string, files: string): Promise<void>;
  waitForFunction(
    fn: string | (() => boolean),
    arg: undefined,
    options: { timeout: number; polling: number },
  ): Promise<unknown>;
  evaluate<T>(fn: string | (() => T)): Promise<T>;
  evaluate<T, A>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  click(selector: string): Promise<void>;
  waitForSelector(selector: string, options: { timeout: number }): Promise<unknown>;
  mouse: {
    move(x: number, y: number): Promise<void>;
    wheel(deltaX: number, deltaY: number): Promise<void>;
  };
  waitForTimeout(ms: number): Promise<void>;
  viewportSize(): { width: number; height: number } | null;
}

/** What the browser test harness exports. */
export interface Harness {
  bundleBrowserEntries(
    options: { name: string; pages: string[]; workers: string[] },
  ): Promise<string>;
  serveDirectory(
    options: { root: string; isolated?: boolean },
  ): { url: string; close(): Promise<void> };
  launchChromium(
    options: { userDataDir?: string },
  ): Promise<{ newPage(): Promise<Page>; close(): Promise<void> }>;
}
