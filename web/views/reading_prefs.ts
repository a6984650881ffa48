/**
 * What a reader chose once and expects again, remembered in localStorage per browser
 * profile: the tab a session opens on (the conversation until the context is chosen;
 * a look at usage is not remembered) and
 * whether the raw entries pane is shown (off until switched on: it serves format
 * debugging, not reading). An address's `tab=` still wins over the remembered tab.
 *
 * @module
 */

/** Right-hand tabs of a session page. */
export type SessionTab = "context" | "conversation" | "usage";

const TAB_KEY = "mu.viewer.tab";
const RAW_KEY = "mu.viewer.showRaw";

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null; // storage blocked: the defaults
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered; the choice still applies to this page
  }
}

/** A tab name, or undefined for anything else. */
export function tabName(name: string | null): SessionTab | undefined {
  return name === "usage" || name === "conversation" || name === "context" ? name : undefined;
}

/** The tab a session opens on when its address names none. */
export function preferredTab(): SessionTab {
  return tabName(read(TAB_KEY)) ?? "conversation";
}

/** Remember the tab the reader chose. */
export function rememberTab(tab: SessionTab): void {
  write(TAB_KEY, tab);
}

/** Whether the raw entries pane is shown (default no). */
export function showRaw(): boolean {
  return read(RAW_KEY) === "1";
}

/** Remember whether the raw entries pane is shown. */
export function rememberShowRaw(shown: boolean): void {
  write(RAW_KEY, shown ? "1" : "0");
}
