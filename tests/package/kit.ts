/**
 * Helpers of the npm package consumer test: run a command and fail with its output, pack
 * the repository, and set up an empty consumer project with the tarball installed the way a
 * user installs it.
 *
 * @module
 */

/**
 * Repository root (absolute, trailing slash).
 *
 * @example
 * ```ts
 * import { ROOT } from "./kit.ts";
 * const manifest = JSON.parse(await Deno.readTextFile(`${ROOT}package.json`));
 * ```
 */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/**
 * What a finished command printed.
 *
 * @example
 * ```ts
 * import { type CommandOutput, run } from "./kit.ts";
 * const output: CommandOutput = await run("npm", ["--version"], { cwd: "/tmp" });
 * ```
 */
export interface CommandOutput {
  stdout: string;
  stderr: string;
}

/**
 * Run a command; a non-zero exit throws with everything it printed, so a failing step
 * says why.
 *
 * @example
 * ```ts
 * import { run } from "./kit.ts";
 * const { stdout } = await run("node", ["--version"], { cwd: "/tmp" });
 * ```
 */
export async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CommandOutput> {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const result = { stdout: decode(output.stdout), stderr: decode(output.stderr) };
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} (in ${options.cwd}) exited with ${output.code}\n` +
        `--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    );
  }
  return result;
}

/**
 * `npm pack` the repository (its `prepack` script builds dist/npm/) into `dir`; returns the
 * tarball path, the paths inside it and their total size unpacked (bytes).
 *
 * @example
 * ```ts
 * import { packRepository } from "./kit.ts";
 * const { tarball, files } = await packRepository(await Deno.makeTempDir());
 * ```
 */
export async function packRepository(
  dir: string,
): Promise<{ tarball: string; files: string[]; unpackedBytes: number }> {
  await run("npm", ["pack", "--pack-destination", dir], { cwd: ROOT });
  const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}package.json`));
  const tarball = `${dir}/${pkg.name.replace(/^@/, "").replace("/", "-")}-${pkg.version}.tgz`;
  const { stdout } = await run("tar", ["-tzf", tarball], { cwd: dir });
  const files = stdout.split("\n").filter(Boolean).map((path) => path.replace(/^package\//, ""));
  // `tar -tv` lines: mode, owner/group, size, date, time, path.
  const listing = (await run("tar", ["-tvzf", tarball], { cwd: dir })).stdout;
  const unpackedBytes = listing.split("\n").filter(Boolean)
    .reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[2]), 0);
  return { tarball, files, unpackedBytes };
}

/**
 * One file's text from a packed tarball (`path` inside the package).
 *
 * @example
 * ```ts
 * import { packRepository, packedText } from "./kit.ts";
 * const { tarball } = await packRepository(await Deno.makeTempDir());
 * const manifest = JSON.parse(await packedText(tarball, "package.json"));
 * ```
 */
export async function packedText(tarball: string, path: string): Promise<string> {
  return (await run("tar", ["-xzOf", tarball, `package/${path}`], { cwd: ROOT })).stdout;
}

/**
 * Node's version as [major, minor].
 *
 * @example
 * ```ts
 * import { nodeVersion } from "./kit.ts";
 * const [major, minor] = await nodeVersion(); // e.g. [20, 20]
 * ```
 */
export async function nodeVersion(): Promise<[number, number]> {
  const { stdout } = await run("node", ["-p", "process.versions.node"], { cwd: ROOT });
  const [major, minor] = stdout.trim().split(".").map(Number);
  return [major, minor];
}

/**
 * Make an empty consumer project in `dir` and `npm install` the tarball into it; returns
 * what npm printed (the test asserts it carries no engine or install-script warning). On a
 * Node without `node:sqlite` (< 22.5) better-sqlite3 is added as the README says
 * (`npm install better-sqlite3@12`), at the repository's version, with its native addon
 * copied from the repository's build instead of compiled again (about two minutes here).
 *
 * @example
 * ```ts
 * import { installConsumer, packRepository } from "./kit.ts";
 * const work = await Deno.makeTempDir();
 * const { tarball } = await packRepository(work);
 * await installConsumer(`${work}/app`, tarball);
 * ```
 */
export async function installConsumer(dir: string, tarball: string): Promise<CommandOutput> {
  await Deno.mkdir(dir, { recursive: true });
  const manifest = { name: "consumer", private: true, type: "module" };
  await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify(manifest));
  const npmFlags = ["--no-audit", "--no-fund", "--prefer-offline"];
  const installed = await run("npm", ["install", tarball, ...npmFlags], { cwd: dir });
  const [major, minor] = await nodeVersion();
  if (major < 22 || (major === 22 && minor < 5)) {
    const repoCopy = `${ROOT}node_modules/better-sqlite3`;
    const { version } = JSON.parse(await Deno.readTextFile(`${repoCopy}/package.json`));
    await run(
      "npm",
      ["install", `better-sqlite3@${version}`, "--ignore-scripts", ...npmFlags],
      { cwd: dir },
    );
    const addon = "build/Release/better_sqlite3.node";
    await Deno.mkdir(`${dir}/node_modules/better-sqlite3/build/Release`, { recursive: true });
    await Deno.copyFile(`${repoCopy}/${addon}`, `${dir}/node_modules/better-sqlite3/${addon}`);
  }
  return installed;
}
