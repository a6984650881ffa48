/**
 * `mu serve [--port N] [--host H]`: the viewer and the session API over the configured
 * store (by default the SQLite database in the agent directory) together with the agent's
 * JSONL session folders (`openSources`), on 127.0.0.1 unless a host is given explicitly.
 * It prints each store it serves with its path. Requests not addressed to the served origin are refused.
 * Runs until interrupted.
 *
 * @module
 */
import process from "node:process";
import type { Command } from "../args.ts";
import { resolvePath, UsageError } from "../context.ts";
import { serveHttp } from "../http_server.ts";
import { openSources } from "../target.ts";
import { viewerRoot } from "../viewer_root.ts";
import { createSessionApi } from "../../web/api/routes.ts";
import { refuseForeign, servedHosts } from "../../web/api/guard.ts";
import { securityHeaders, serveFile } from "../../web/static.ts";

/** Default port. */
export const DEFAULT_PORT = 8787;

function portOf(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`invalid port ${JSON.stringify(raw)}`);
  }
  return port;
}

export const serve: Command = {
  name: "serve",
  summary: "Serve the viewer and the session API over the store on 127.0.0.1 (prints the URL).",
  operands: "",
  arity: [0, 0],
  flags: {
    port: {
      type: "string",
      short: "p",
      value: "N",
      help: "port (default $MU_VIEWER_PORT, $PORT or 8787; a free one if taken)",
    },
    host: {
      type: "string",
      value: "H",
      help: "listen on H instead of 127.0.0.1 (anyone who reaches it can read your sessions)",
    },
    root: { type: "string", value: "DIR", help: "serve this built viewer folder" },
    rebuild: { type: "boolean", help: "rebuild the viewer first" },
    "max-import-bytes": {
      type: "string",
      value: "N",
      help: "largest accepted import body (default 256 MiB)",
    },
  },
  globals: ["storage"],
  async run(invocation, cli) {
    const wanted = portOf(invocation.flags.port as string | undefined) ??
      portOf(cli.env.MU_VIEWER_PORT) ?? portOf(cli.env.PORT) ?? DEFAULT_PORT;
    const hostname = (invocation.flags.host as string | undefined) ?? "127.0.0.1";
    const root = invocation.flags.root === undefined
      ? await viewerRoot(cli, invocation.flags.rebuild === true)
      : resolvePath(cli, invocation.flags.root as string);
    const { store, sources, absent } = await openSources(invocation, cli);
    const limit = invocation.flags["max-import-bytes"] as string | undefined;
    const maxImportBytes = limit === undefined ? undefined : Number(limit);
    if (maxImportBytes !== undefined && !(Number.isInteger(maxImportBytes) && maxImportBytes > 0)) {
      throw new UsageError(
        `--max-import-bytes must be a positive integer, not ${JSON.stringify(limit)}`,
      );
    }
    const api = createSessionApi({ store, maxImportBytes, sources, absent });
    let hosts = new Set<string>();
    const handler = async (request: Request): Promise<Response> => {
      const refused = refuseForeign(request, hosts);
      if (refused) {
        await request.body?.cancel();
        for (const [name, value] of securityHeaders()) refused.headers.set(name, value);
        return refused;
      }
      const answer = await api(request) ?? await serveFile(root, request);
      for (const [name, value] of securityHeaders()) {
        if (!answer.headers.has(name)) answer.headers.set(name, value);
      }
      return answer;
    };
    let server;
    try {
      server = await serveHttp(handler, hostname, wanted);
    } catch (error) {
      if ((error as { code?: string }).code !== "EADDRINUSE" || wanted === 0) throw error;
      server = await serveHttp(handler, hostname, 0);
      cli.err(
        `port ${wanted} is in use, so this runs on ${server.port}. A different port is a different origin: sessions kept in the browser at port ${wanted} are not visible here.\n`,
      );
    }
    hosts = servedHosts(hostname, server.port);
    const shown = hostname.includes(":") ? `[${hostname}]` : hostname;
    cli.out(`mu serve: http://${shown}:${server.port}/  (Ctrl+C to stop)\n`);
    // The paths, so a user can see which agent folder (PI_CODING_AGENT_DIR) was read.
    for (const source of sources) {
      cli.out(`  serving ${source.store.kind} ${source.location}  (${source.label})\n`);
    }
    for (const place of absent) cli.out(`  not found: ${place.location}  (${place.label})\n`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    await server.close();
    await store.close();
    return 0;
  },
};
