/**
 * Run `mu` commands in-process against a temporary agent directory, capturing output, or
 * as a real subprocess (exit codes, stdin).
 */
import { runCli } from "../../cli/main.ts";
import type { CliContext } from "../../cli/context.ts";
import { removeDir, tempDir } from "../jsonl/subjects.ts";

/** What one command printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary agent directory and a working directory to run commands in. */
export interface CliWorld {
  root: string;
  agentDir: string;
  cwd: string;
  /** Run `mu ...args` in-process; `answers` are the replies to questions asked. */
  mu(args: string[], answers?: string[]): Promise<CliResult>;
}

export function cliTest(name: string, fn: (world: CliWorld) => Promise<void>) {
  Deno.test(`mu: ${name}`, async () => {
    const root = await tempDir("mu-cli-");
    const world: CliWorld = {
      root,
      agentDir: `${root}/agent`,
      cwd: `${root}/project`,
      async mu(args, answers = []) {
        await Deno.mkdir(world.cwd, { recursive: true });
        let stdout = "";
        let stderr = "";
        const context: CliContext = {
          out: (text) => void (stdout += text),
          err: (text) => void (stderr += text),
          cwd: world.cwd,
          env: { PI_CODING_AGENT_DIR: world.agentDir, HOME: root },
          stderrIsTTY: false,
          ask: (question) => {
            stderr += question;
            return Promise.resolve(answers.shift() ?? "");
          },
        };
        const code = await runCli(args, context);
        return { code, stdout, stderr };
      },
    };
    try {
      await fn(world);
    } finally {
      await removeDir(root);
    }
  });
}

const MAIN = new URL("../../cli/mu.ts", import.meta.url).pathname;

/** Run `mu` as a real Deno subprocess (exit codes and stdin as a user sees them). */
export async function muProcess(
  world: CliWorld,
  args: string[],
  stdin = "",
  env: Record<string, string> = {},
): Promise<CliResult> {
  await Deno.mkdir(world.cwd, { recursive: true });
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    cwd: world.cwd,
    // The desktop trash of this world, never the user's own (a JSONL delete goes there).
    env: {
      PI_CODING_AGENT_DIR: world.agentDir,
      NO_COLOR: "1",
      XDG_DATA_HOME: `${world.root}/data`,
      ...env,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(stdin));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const text = new TextDecoder();
  return { code, stdout: text.decode(stdout), stderr: text.decode(stderr) };
}
