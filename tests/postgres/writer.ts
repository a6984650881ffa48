/**
 * Deno writer process for the multi-process test:
 * `deno run --allow-net --allow-env --allow-read tests/postgres/writer.ts '<json args>'`.
 */
import { runWriter, type WriterArgs } from "./writer_core.ts";

await runWriter(JSON.parse(Deno.args[0]) as WriterArgs);
