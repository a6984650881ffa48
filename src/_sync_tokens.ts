/**
 * Change tokens for a sync: each session's token on the sending side (from its listing
 * where the store reports them, the others asked for in batches) and, for the sessions to
 * copy, on the receiving side. Split from `sync.ts`, which plans and copies.
 *
 * @module
 */
import type { SessionInfo, SessionStore } from "./store.ts";

/**
 * What the receiving store holds of the sessions to copy, asked in one batch where it can
 * (`changeTokens`): a token, or undefined for a session it lacks. Read before any session,
 * so a write landing later only makes a later run read that session once more.
 */
export async function receivingTokens(
  to: SessionStore,
  sessions: readonly SessionInfo[],
  signal: AbortSignal | undefined,
): Promise<Map<string, { token: string | undefined }> | undefined> {
  if (!to.changeTokens || sessions.length === 0) return undefined;
  const ids = sessions.map((info) => info.id);
  const tokens = await changeTokens(to, ids, signal);
  return new Map(ids.map((id, i) => [id, { token: tokens[i] }]));
}

/**
 * How many change tokens are asked for at once: one `changeTokens` call, or single calls a
 * server answers over one pipeline.
 */
const TOKENS_IN_FLIGHT = 1_000;
const SINGLE_TOKENS_IN_FLIGHT = 64;

/**
 * Every session's change token (undefined for a store without them): those `known` from
 * the listing, the others asked for many at a time (one after the other, a server's round
 * trips would dominate a run with nothing new).
 */
export async function changeTokens(
  store: SessionStore,
  ids: readonly string[],
  signal: AbortSignal | undefined,
  known: ReadonlyMap<string, string> = new Map(),
): Promise<(string | undefined)[]> {
  const many = store.changeTokens?.bind(store);
  const one = store.changeToken?.bind(store);
  if (!many && !one) return [];
  const asked = ids.filter((id) => !known.has(id));
  const answers: (string | undefined)[] = [];
  const step = many ? TOKENS_IN_FLIGHT : SINGLE_TOKENS_IN_FLIGHT;
  for (let at = 0; at < asked.length; at += step) {
    signal?.throwIfAborted();
    const slice = asked.slice(at, at + step);
    answers.push(...await (many ? many(slice) : Promise.all(slice.map((id) => one!(id)))));
  }
  const answered = new Map(asked.map((id, i) => [id, answers[i]]));
  return ids.map((id) => known.has(id) ? known.get(id) : answered.get(id));
}
