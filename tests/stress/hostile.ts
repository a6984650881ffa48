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
import { SessionError, type SessionStore } from "../../core.ts";
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
  finding?: number,
  unblock?: () => Promise<void>,
): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), OPERATION_TIMEOUT_MS);
  });
  const running = fn();
  try {
    const result = await Promise.race([running.then(() => "ok" as const), timeout]);
    checks.check(result === "ok", `${what}: no answer within ${OPERATION_TIMEOUT_MS} ms`, finding);
    if (result === "timeout" && unblock) {
      await unblock();
      await running.catch(() => {});
    }
    return result === "ok";
  } catch (error) {
    checks.check(error instanceof SessionError, `${what}: threw ${error}`, finding);
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

/**
 * Ids that differ only in a NUL or a lone surrogate stay distinct, or are refused with a
 * library error; never is one answered with the other's data (findings 2 and 8).
 */
async function idFidelity(checks: Checks, store: SessionStore, label: string): Promise<void> {
  for (const [a, b, finding] of [["s\ud800", "s\udc00", 8]] as const) {
    let both = true;
    for (const id of [a, b]) {
      both = await attempt(checks, `${label} create ${JSON.stringify(id)}`, () =>
        store.create(header(id))) && both;
    }
    for (const id of both ? [a, b] : [a]) {
      await attempt(checks, `${label} load ${JSON.stringify(id)}`, async () => {
        const loaded = await store.load(id);
        checks.check(
          loaded.header.id === id,
          `${label}: session ${JSON.stringify(id)} loads ${JSON.stringify(loaded.header.id)}`,
          finding,
        );
      });
    }
  }
  for (const [x, y, finding] of [["a\u0000x", "a\u0000y", 2], ["e\ud800", "e\udc00", 8]] as const) {
    const id = `branches-${finding}`;
    const entries = [messageEntry(x, null), messageEntry(y, null), messageEntry("leafx001", x)];
    if (
      !(await attempt(
        checks,
        `${label} entry ids ${JSON.stringify([x, y])}`,
        () => store.create(header(id), entries),
      ))
    ) continue;
    await attempt(checks, `${label} branch of ${JSON.stringify(x)}`, async () => {
      const { entries: loaded } = await store.load(id);
      checks.check(
        JSON.stringify(loaded.map((e) => e.id)) === JSON.stringify([x, y, "leafx001"]),
        `${label}: entry ids ${JSON.stringify([x, y])} changed on load`,
        finding,
      );
      const branch = store.loadBranch ? (await store.loadBranch(id, "leafx001")).entries : [];
      if (store.loadBranch) {
        checks.check(
          branch[0]?.id === x,
          `${label}: loadBranch(leaf of ${JSON.stringify(x)}) starts at ${
            JSON.stringify(branch[0]?.id)
          }`,
          finding,
        );
      }
    });
  }
}

/** Snapshot `parent`, run `fn`, and report anything new or changed outside `root`. */
async function outsideOnly(
  checks: Checks,
  parent: string,
  root: string,
  label: string,
  fn: () => Promise<void>,
  finding?: number,
): Promise<number> {
  const before = await snapshotTree(parent);
  await fn();
  const after = await snapshotTree(parent);
  const outside = treeDiff(before, after).filter((line) => {
    const path = line.slice(1).split(" ")[0];
    return path !== root && !path.startsWith(`${root}/`);
  });
  checks.check(
    outside.length === 0,
    `${label}: written outside the root: ${outside.join(", ")}`,
    finding,
  );
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
      // TODO(new finding 15): a lock file that is a dangling symlink makes the lock loop spin
      // forever, past lockTimeoutMs; the CI slice leaves this case out until it is fixed
      // (it would hang there). The full run keeps it.
      if (checks.ci && plant.suffix === ".lock") continue;
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
            await attempt(
              checks,
              `${plant.id} append`,
              () => fresh.append(plant.id, [messageEntry("s0000001", null)]),
              15,
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
    // Finding 13: an id that looks like a path is taken as one by repairSession.
    figures.cases++;
    figures.outside += await outsideOnly(
      checks,
      parent,
      root,
      "repairSession(path-like id)",
      async () => {
        await attempt(
          checks,
          "repairSession(path-like id)",
          () => store.repairSession(`${outsideDir}/victim.jsonl`),
          13,
        );
      },
      13,
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
    // Finding 9: a dangling sessions.db link must not create its target (with 0644).
    const linked = `${parent}/agent-linked`;
    await Deno.mkdir(linked);
    await Deno.symlink(`${parent}/outside-target.db`, `${linked}/sessions.db`);
    figures.cases++;
    figures.outside += await outsideOnly(
      checks,
      parent,
      linked,
      "dangling sessions.db link",
      async () => {
        await attempt(checks, "open through a dangling sessions.db link", async () => {
          const store = await resolveDefaultStore({
            ...options(project),
            env: { PI_CODING_AGENT_DIR: linked },
          });
          await store.close();
        });
      },
      9,
    );
    figures.cases++;
    await relativeAgentDir(checks, project);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
}

/**
 * Finding 12: a relative `PI_CODING_AGENT_DIR` must not make a repository's `agent/` folder
 * (run from inside it) the agent directory whose settings choose the storage.
 */
async function relativeAgentDir(checks: Checks, project: string): Promise<void> {
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
        home: `${project}/../home`,
        approve: false,
      });
      const where = choice.kind === "jsonl"
        ? choice.dir
        : choice.kind === "sqlite"
        ? choice.path
        : "";
      checks.check(
        !(choice.settingsPath ?? "").startsWith(`${project}/`) && !where.startsWith(project),
        `relative PI_CODING_AGENT_DIR: the project's own agent/ chose the storage (${where})`,
        12,
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
