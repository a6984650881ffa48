#!/usr/bin/env node
/**
 * The `mu` executable (the npm package's `bin`; `deno task mu` in the repository): runs one
 * command line and exits with its code.
 *
 * @module
 */
import process from "node:process";
import { runCli } from "./main.ts";

process.exitCode = await runCli(process.argv.slice(2));
