/**
 * A throwaway PostgreSQL cluster for the tests, in Deno and Node alike (node: APIs only):
 * `initdb` into a temporary directory, `pg_ctl start` on a free loopback port, as the
 * unprivileged `postgres` user when running as root (the server refuses root). If no
 * server can be started, `startCluster` rejects with a message that says why and how to
 * fix it: the PostgreSQL tests fail, they are never skipped.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** A running throwaway cluster. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth: any password works). */
  url: string;
  port: number;
  /** Kill the server without a shutdown checkpoint (`pg_ctl stop -m immediate`): a crash. */
  crash(): Promise<void>;
  /** Start it again on the same port and data. */
  start(): Promise<void>;
  /** Stop it and remove its directory. */
  stop(): Promise<void>;
}

/** The newest Debian PostgreSQL bin directory, or `$MU_PG_BIN`. */
function binDir(): string {
  const configured = process.env.MU_PG_BIN;
  if (configured && !existsSync(join(configured, "initdb"))) {
    throw new Error(`PostgreSQL tests need a server: MU_PG_BIN=${configured} has no initdb.`);
  }
  if (configured) return configured;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error(
      "PostgreSQL tests need a server: no /usr/lib/postgresql/*/bin/initdb found. " +
        "Install it (`apt-get install -y postgresql`, as .ci/run does) or set MU_PG_BIN.",
    );
  }
  return join(root, versions[0], "bin");
}

let root: boolean | undefined;
/** Whether we run as root; `id -u` rather than `process.getuid` (Deno would need --allow-sys). */
const asRoot = () => root ??= execFileSync("id", ["-u"], { encoding: "utf8" }).trim() === "0";

/** Run a PostgreSQL program, as `postgres` when we are root; rejects with its output. */
function run(bin: string, program: string, args: string[]): Promise<string> {
  const [command, argv] = asRoot()
    ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]]
    : [join(bin, program), args];
  return new Promise((resolve, reject) => {
    execFile(command, argv, { encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${program} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a fresh cluster (about 3 s). Stopped by `stop()`, and at the latest when the
 * process exits.
 */
export async function startCluster(options: { bin?: string } = {}): Promise<Cluster> {
  const bin = options.bin ?? binDir();
  const dir = await mkdtemp(join(tmpdir(), "mu-pg-"));
  const data = join(dir, "data");
  if (asRoot()) execFileSync("chown", ["postgres", dir]);
  const port = await freePort();
  try {
    await run(bin, "initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "--auth=trust",
      "--no-sync",
      "-E",
      "UTF8",
    ]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`Cannot create a PostgreSQL test cluster: ${(error as Error).message}`);
  }
  // fsync off: the crash test kills the server process, not the machine, so committed
  // WAL is still in the OS cache; it saves a lot of I/O on shared CI machines.
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    run(bin, "pg_ctl", ["-D", data, "-o", serverOptions, "-l", join(dir, "log"), "-w", "start"])
      .then(() => {});
  const halt = (mode: string) =>
    run(bin, "pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]).then(() => {});
  let running = false;
  const onExit = () => {
    if (!running) return;
    try {
      const argv = ["-D", data, "-m", "immediate", "stop"];
      if (asRoot()) execFileSync("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), ...argv]);
      else execFileSync(join(bin, "pg_ctl"), argv);
    } catch { /* already gone */ }
  };
  process.on("exit", onExit);
  try {
    await start();
    running = true;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`Cannot start the PostgreSQL test cluster: ${(error as Error).message}`);
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    crash: async () => {
      await halt("immediate");
      running = false;
    },
    start: async () => {
      await start();
      running = true;
    },
    stop: async () => {
      if (running) await halt("fast");
      running = false;
      process.off("exit", onExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
