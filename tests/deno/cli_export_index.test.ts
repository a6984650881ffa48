/**
 * `mu export <id> --index -o FILE`: FILE is the session's JSONL export, unchanged, and FILE.idx
 * its export index (src/export_index.ts), which checks out against FILE's bytes.
 */
import { readFile } from "node:fs/promises";
import { assert, assertEquals } from "../conformance/assert.ts";
import { cliTest } from "../cli/harness.ts";
import { CONV, conversationSession } from "../viewer/conversation_fixture.ts";
import { checkExportFile, parseExportIndex } from "../../src/export_index.ts";

cliTest(
  "export --index writes the JSONL and a sidecar index of exactly those bytes",
  async (world) => {
    const file = `${world.root}/render.jsonl`;
    await Deno.writeTextFile(file, conversationSession());
    assertEquals((await world.mu(["import", file])).code, 0);
    const plain = await world.mu(["export", CONV.sessionId]);
    const result = await world.mu(["export", CONV.sessionId, "--index", "-o", "out.jsonl"]);
    assertEquals(result.code, 0, result.stderr);
    const jsonl = await readFile(`${world.cwd}/out.jsonl`);
    assertEquals(new TextDecoder().decode(jsonl), plain.stdout, "the export itself is unchanged");
    const index = parseExportIndex(await readFile(`${world.cwd}/out.jsonl.idx`, "utf8"));
    await checkExportFile(index, jsonl);
    assertEquals(index.idAt(index.count - 1), CONV.last);

    const toStdout = await world.mu(["export", CONV.sessionId, "--index"]);
    assert(toStdout.code !== 0 && toStdout.stderr.includes("--index needs -o"), toStdout.stderr);
  },
);
