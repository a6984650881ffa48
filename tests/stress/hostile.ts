/**
 * Hostile session ids, cwd values, createdAt values and planted symlinks against every
 * store that maps them to paths: the JSONL folder store on the file system, and the
 * default store's resolution (agent directory, project settings, `sessions.db`). The
 * temp parent of each store root is snapshotted before and after: nothing may appear or
 * change outside the root. Every operation either works or rejects with a library error;
 * each has a generous timeout so a lock loop that never gives up is reported, not hung.
 *
 * @module
 */
import {
  InvalidArgumentError,
  SessionError,
  SessionFormatError,
  type SessionStore,
} from "../../core.ts";
import { openJsonlFsStore } from "../../stores/jsonl/fs.ts";
import { hashSessionId, sessionFileName } from "../../stores/jsonl/_folder.ts";
import { resolveDefaultStore, resolveStorageChoice } from "../../stores/default/mod.ts";
import { HOSTILE_CREATED, HOSTILE_CWDS, HOSTILE_IDS } from "./_hostile_values.ts";
import { type Checks, header, messageEntry, snapshotTree, tempDir, treeDiff } from "./_shared.ts";

export interface HostileFigures {
  cases: number;
  /** Paths written outside a store root (must be 0). */
  outside: number;
}

const OPERATION_TIMEOUT_MS = 30_000;

/**
 * Run `fn`; a library error is fine, anything else or a hang is a failed check. After a
 * hang, `unblock` removes its cause and the operation is awaited, so it cannot go on
 * writing while the test directory is removed.
 */
async function attempt(
  checks: Checks,
  what: string,
  fn: () => Promise<unknown>,
  unblock?: () => Promise<void>,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), OPERATION_TIMEOUT_MS);
  });
  const running = fn();
  try {
    const result = await Promise.race([running.then(() => "ok" as const), timeout]);
    checks.check(result === "ok", `${what}: no answer within ${OPERATION_TIMEOUT_MS} ms`);
    if (result === "timeout" && unblock) {
      await unblock();
      await running.catch(() => {});
    }
    return result === "ok";
  } catch (error) {
    checks.check(error instanceof SessionError, `${what}: threw ${error}`);
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Everything a caller can do with one session id through a store. */
async function exercise(
  checks: Checks,
  store: SessionStore,
  id: string,
  cwd: string,
  label: string,
) {
  const what = `${label} id ${JSON.stringify(id.slice(0, 40))} cwd ${
    JSON.stringify(cwd.slice(0, 40))
  }`;
  const created = await attempt(
    checks,
    `${what} create`,
    () => store.create({ ...header(id, cwd) }, [messageEntry("h0000001", null)]),
  );
  await attempt(checks, `${what} has`, () => store.has(id));
  if (!created) return;
  await attempt(
    checks,
    `${what} append`,
    () => store.append(id, [messageEntry("h0000002", "h0000001")]),
  );
  await attempt(checks, `${what} load`, async () => {
    const { entries } = await store.load(id);
    checks.check(entries.length === 2, `${what}: loaded ${entries.length} entries, expected 2`);
  });
  await attempt(checks, `${what} list`, () => store.list({ cwd }));
  await attempt(
    checks,
    `${what} updateHeader`,
    () => store.updateHeader({ ...header(id, cwd), name: id } as never),
  );
  await attempt(checks, `${what} export`, () => store.exportJsonl?.(id) ?? Promise.resolve());
  await attempt(checks, `${what} delete`, () => store.delete(id));
}

/** Ids no store can keep exactly: node:sqlite cut them at NUL, merged lone surrogates. */
const UNSTORABLE = [["a\u0000x", "a\u0000y"], ["e\ud800", "e\udc00"]] as const;

/**
 * Issue 11 findings 2 and 8: ids that differ only in a NUL or a lone surrogate once made
 * node:sqlite answer with the other one's data. Every store now refuses them at the seam
 * with `InvalidArgumentError` and stores nothing, so there is no wrong answer to give.
 */
async function idFidelity(checks: Checks, store: SessionStore, label: string): Promise<void> {
  const refused = async (what: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
      checks.check(false, `${label} ${what}: accepted (findings 2, 8)`);
    } catch (error) {
      checks.check(
        error instanceof InvalidArgumentError,
        `${label} ${what}: threw ${error}, not InvalidArgumentError (findings 2, 8)`,
      );
    }
  };
  const kept = `fidelity-${label.split(" ")[0]}`;
  await store.create(header(kept), [messageEntry("kept0001", null)]);
  for (const [n, [x, y]] of UNSTORABLE.entries()) {
    for (const id of [x, y]) {
      await refused(`create session ${JSON.stringify(id)}`, () => store.create(header(id)));
      // Not there, or refused: never found as some other session.
      await attempt(checks, `${label} has ${JSON.stringify(id)}`, async () => {
        checks.check(!(await store.has(id)), `${label}: has(${JSON.stringify(id)}) is true`);
      });
    }
    const id = `branches-${n}`;
    const entries = [messageEntry(x, null), messageEntry(y, null), messageEntry("leafx001", x)];
    await refused(`entry ids ${JSON.stringify([x, y])}`, () => store.create(header(id), entries));
    checks.check(!(await store.has(id)), `${label}: refused session ${id} was stored`);
    await refused(
      `append entry ${JSON.stringify(x)}`,
      () => store.append(kept, [messageEntry(x, "kept0001")]),
    );
    await refused(
      `append with parent ${JSON.stringify(y)}`,
      () => store.append(kept, [messageEntry("kept0002", y)]),
    );
  }
  const { entries } = await store.load(kept);
  checks.check(
    entries.length === 1,
    `${label}: refused appends stored ${entries.length - 1} entries`,
  );
  await store.delete(kept);
}

/**
 * The same ids in a session file (written by something else): the file does not open, a
 * `SessionFormatError`, instead of being read back as other ids.
 */
async function unstorableInFile(checks: Checks, root: string): Promise<void> {
  const store = await openJsonlFsStore(root, { trashCommand: false });
  for (const [n, [x, y]] of UNSTORABLE.entries()) {
    const id = `file-ids-${n}`;
    const createdAt = "2026-03-03T00:00:00.000Z";
    const name = sessionFileName(createdAt, await hashSessionId(id));
    const lines = [{ ...header(id), createdAt }, messageEntry(x, null), messageEntry(y, null)];
    await Deno.writeTextFile(`${root}/${name}`, lines.map((l) => JSON.stringify(l)).join("\n"));
    try {
      await store.load(id);
      checks.check(false, `file with entry ids ${JSON.stringify([x, y])}: opened (findings 2, 8)`);
    } catch (error) {
      checks.check(
        error instanceof SessionFormatError,
        `file with entry ids ${JSON.stringify([x, y])}: threw ${error}, not SessionFormatError`,
      );
    }
    await Deno.remove(`${root}/${name}`);
  }
  await store.close();
}

/** Snapshot `parent`, run `fn`, and report anything new or changed outside `root`. */
async function outsideOnly(
  checks: Checks,
  parent: string,
  root: string,
  label: string,
  fn: () => Promise<void>,
  /** Paths outside the root the case may write (named by the caller's own symlink). */
  allowed: string[] = [],
): Promise<number> {
  const before = await snapshotTree(parent);
  await fn();
  const after = await snapshotTree(parent);
  const outside = treeDiff(before, after).filter((line) => {
    const path = line.slice(1).split(" ")[0];
    return path !== root && !path.startsWith(`${root}/`) && !allowed.includes(path);
  });
  checks.check(outside.length === 0, `${label}: written outside the root: ${outside.join(", ")}`);
  return outside.length;
}

async function jsonlCases(checks: Checks, figures: HostileFigures): Promise<void> {
  const parent = await tempDir("hostile-jsonl");
  const root = `${parent}/root`;
  const outsideDir = `${parent}/outside`;
  await Deno.mkdir(root);
  await Deno.mkdir(outsideDir);
  await Deno.writeTextFile(
    `${outsideDir}/victim.jsonl`,
    '{"type":"session","version":4,"id":"victim","createdAt":"2026-01-01T00:00:00.000Z","cwd":"/v"}\n{"type":"mess',
  );
  try {
    const store = await openJsonlFsStore(root, { trashCommand: false, lockTimeoutMs: 2_000 });
    figures.outside += await outsideOnly(checks, parent, root, "jsonl ids and cwds", async () => {
      for (const id of HOSTILE_IDS) {
        figures.cases++;
        await exercise(checks, store, id, "/p", "jsonl");
      }
      for (const cwd of HOSTILE_CWDS) {
        figures.cases++;
        await exercise(checks, store, `cwd-${figures.cases}`, cwd, "jsonl");
      }
      await idFidelity(checks, store, "jsonl");
      figures.cases++;
      await unstorableInFile(checks, root);
      for (const createdAt of HOSTILE_CREATED) {
        figures.cases++;
        await attempt(
          checks,
          `jsonl createdAt ${createdAt}`,
          () => store.create({ ...header(`c-${figures.cases}`), createdAt }),
        );
      }
    });
    // Symlinks planted in the root: at the file a new session gets (dangling, and to a
    // file outside), at its lock file, and a folder leading out (read as a pi folder).
    const planted = [
      { id: "link-dangling", target: `${outsideDir}/created-through-link.jsonl`, suffix: "" },
      { id: "link-existing", target: `${outsideDir}/victim.jsonl`, suffix: "" },
      { id: "link-lock", target: `${outsideDir}/lock-target`, suffix: ".lock" },
    ];
    await Deno.symlink(outsideDir, `${root}/--outside--`);
    for (const plant of planted) {
      figures.cases++;
      const createdAt = "2026-02-02T00:00:00.000Z";
      const name = sessionFileName(createdAt, await hashSessionId(plant.id));
      if (plant.suffix) {
        // A session whose lock file is a link out: its next write must not follow it.
        await store.create({ ...header(plant.id), createdAt });
      }
      await Deno.symlink(plant.target, `${root}/${name}${plant.suffix}`);
      figures.outside += await outsideOnly(
        checks,
        parent,
        root,
        `jsonl symlink ${plant.id}`,
        async () => {
          const fresh = await openJsonlFsStore(root, { trashCommand: false, lockTimeoutMs: 2_000 });
          if (plant.suffix) {
            // Finding 15: a dangling link at the lock made this spin past lockTimeoutMs.
            await attempt(
              checks,
              `${plant.id} append (finding 15)`,
              () => fresh.append(plant.id, [messageEntry("s0000001", null)]),
              () => Deno.remove(`${root}/${name}${plant.suffix}`),
            );
          } else {
            await attempt(
              checks,
              `${plant.id} create`,
              () => fresh.create({ ...header(plant.id), createdAt }),
            );
          }
          await attempt(checks, `${plant.id} list`, () => fresh.list());
        },
      );
    }
    // Finding 13: repairSession(string) is an id, never a path (a path is `{ path }`).
    figures.cases++;
    figures.outside += await outsideOnly(
      checks,
      parent,
      root,
      "repairSession(path-like id) (finding 13)",
      async () => {
        await attempt(
          checks,
          "repairSession(path-like id)",
          () => store.repairSession(`${outsideDir}/victim.jsonl`),
        );
      },
    );
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

async function defaultStoreCases(checks: Checks, figures: HostileFigures): Promise<void> {
  const parent = await tempDir("hostile-default");
  const agentDir = `${parent}/agent`;
  const project = `${parent}/project`;
  await Deno.mkdir(`${project}/.pi`, { recursive: true });
  // An untrusted project asks for storage outside the agent directory: must be ignored.
  await Deno.writeTextFile(
    `${project}/.pi/settings.json`,
    JSON.stringify({ sessions: { storage: { type: "jsonl", dir: "../redirected" } } }),
  );
  const options = (cwd: string) => ({
    cwd,
    env: { PI_CODING_AGENT_DIR: agentDir },
    home: `${parent}/home`,
    approve: false,
  });
  try {
    figures.outside += await outsideOnly(checks, parent, agentDir, "default store", async () => {
      for (
        const cwd of [
          project,
          `${project}/../..`,
          `${parent}/missing/../project`,
          "/",
          ...HOSTILE_CWDS,
        ]
      ) {
        figures.cases++;
        let store: SessionStore | undefined;
        await attempt(
          checks,
          `default store for cwd ${JSON.stringify(cwd.slice(0, 40))}`,
          async () => {
            store = await resolveDefaultStore(options(cwd));
          },
        );
        if (store) await exercise(checks, store, `d-${figures.cases}`, cwd, "default");
      }
      const store = await resolveDefaultStore(options(project));
      for (const id of HOSTILE_IDS) {
        figures.cases++;
        await exercise(checks, store, id, project, "default");
      }
      await idFidelity(checks, store, "default (sqlite)");
      await store.close();
    });
    // Finding 9: a dangling sessions.db link (the user's own: it is in the agent directory)
    // gets its target created private, 0600, as SQLite would have made it 0644; nothing
    // else appears outside.
    const linked = `${parent}/agent-linked`;
    const target = `${parent}/outside-target.db`;
    await Deno.mkdir(linked);
    await Deno.symlink(target, `${linked}/sessions.db`);
    figures.cases++;
    figures.outside += await outsideOnly(
      checks,
      parent,
      linked,
      "dangling sessions.db link (finding 9)",
      async () => {
        await attempt(checks, "open through a dangling sessions.db link", async () => {
          const store = await resolveDefaultStore({
            ...options(project),
            env: { PI_CODING_AGENT_DIR: linked },
          });
          await store.close();
        });
      },
      [target],
    );
    const mode = (await Deno.lstat(target).catch(() => undefined))?.mode;
    checks.check(
      mode == null || (mode & 0o777) === 0o600,
      `dangling sessions.db link: target created with mode ${mode?.toString(8)} (finding 9)`,
    );
    figures.cases++;
    await relativeAgentDir(checks, project, `${parent}/home`);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

/**
 * Finding 12: a relative `PI_CODING_AGENT_DIR` resolves against home, so a repository's
 * `agent/` folder (run from inside it) never becomes the agent directory that chooses the
 * storage.
 */
async function relativeAgentDir(checks: Checks, project: string, home: string): Promise<void> {
  await Deno.mkdir(`${project}/agent`);
  await Deno.writeTextFile(
    `${project}/agent/settings.json`,
    JSON.stringify({ sessions: { storage: { type: "jsonl", dir: "../redirected" } } }),
  );
  const saved = Deno.cwd();
  Deno.chdir(project);
  try {
    await attempt(checks, "relative PI_CODING_AGENT_DIR", async () => {
      const choice = await resolveStorageChoice({
        cwd: project,
        env: { PI_CODING_AGENT_DIR: "agent" },
        home,
        approve: false,
      });
      const where = choice.kind === "jsonl"
        ? choice.dir
        : choice.kind === "sqlite"
        ? choice.path
        : "";
      checks.check(
        !(choice.settingsPath ?? "").startsWith(`${project}/`) &&
          where.startsWith(`${home}/agent/`),
        `relative PI_CODING_AGENT_DIR: not resolved against home (finding 12): ${where}`,
      );
    });
  } finally {
    Deno.chdir(saved);
  }
}

export async function hostileSection(checks: Checks): Promise<HostileFigures> {
  const figures: HostileFigures = { cases: 0, outside: 0 };
  await jsonlCases(checks, figures);
  await defaultStoreCases(checks, figures);
  console.log(`  ${figures.cases} cases, ${figures.outside} paths written outside a store root`);
  return figures;
}
