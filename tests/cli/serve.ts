/**
 * Start `mu serve` as a real process against a temporary agent directory and wait for the
 * URL it prints.
 */
const MAIN = new URL("../../cli/mu.ts", import.meta.url).pathname;

/** A running `mu serve`. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  port: number;
  /** Everything it printed on standard output so far. */
  printed(): string;
  stop(): Promise<void>;
}

/** Start `mu serve --port 0 ...args` with `PI_CODING_AGENT_DIR=agentDir`. */
export async function startServe(agentDir: string, args: string[] = []): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, "serve", "--port", "0", ...args],
    env: { PI_CODING_AGENT_DIR: agentDir, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/http:\/\/\S+\//.test(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`mu serve exited before printing its URL: ${text}`);
    text += value;
  }
  const url = new URL(text.match(/http:\/\/\S+\//)![0]);
  // Keep reading what it prints after the URL (the stores it serves).
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      text += value;
    }
  })().catch(() => {});
  return {
    origin: url.origin,
    port: Number(url.port),
    printed: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await reader.cancel().catch(() => {});
    },
  };
}
