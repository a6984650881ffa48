/**
 * The edge handler under hostile requests (issue 11): the `?url=` guard over a table of
 * IP literal forms, bodies cancelled once refused, a body-read timeout.
 */
import { createProjectionHandler, isPublicHttpsUrl } from "../../web/edge.ts";

function assert(condition: unknown, message = "assertion failed"): asserts condition {
  if (!condition) throw new Error(message);
}

function assertEquals(actual: unknown, expected: unknown, message = ""): void {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}\nexpected: ${e}\nactual:   ${a}`);
}

const REFUSED_HOSTS = [
  "[::1]",
  "[::]",
  "[0:0:0:0:0:0:0:1]",
  "[::127.0.0.1]", // IPv4-compatible
  "[::7f00:1]",
  "[::8.8.8.8]",
  "[::ffff:127.0.0.1]", // IPv4-mapped
  "[::ffff:7f00:1]",
  "[::ffff:8.8.8.8]", // mapped, even to a public address
  "[::ffff:0:7f00:1]", // SIIT
  "[64:ff9b::7f00:1]", // NAT64 to 127.0.0.1
  "[64:ff9b::8.8.8.8]",
  "[64:ff9b:1::1]", // local-use NAT64
  "[100::1]", // discard
  "[fec0::1]", // site local
  "[feff::1]",
  "[fe80::1]", // link local
  "[fc00::1]", // unique local
  "[fd12:3456::1]",
  "[ff02::1]", // multicast
  "[2001::1]", // Teredo
  "[2001:10::1]", // ORCHID
  "[2001:db8::1]", // documentation
  "[3fff::1]",
  "[2002:7f00:1::1]", // 6to4 embedding 127.0.0.1
  "[4000::1]", // not yet allocated: not global unicast
  "127.0.0.1",
  "0x7f.1",
  "10.1.2.3",
  "192.0.2.1",
  "localhost",
  "a.localhost",
];
const ALLOWED_HOSTS = [
  "example.com",
  "8.8.8.8",
  "[2606:4700:4700::1111]",
  "[2a00:1450:4001:81b::200e]",
  "[2001:4860:4860::8888]",
];

Deno.test("edge ?url= guard: every non-global IP literal form is refused, global ones pass", () => {
  for (const host of REFUSED_HOSTS) {
    assert(!isPublicHttpsUrl(new URL(`https://${host}/s.jsonl`)), `${host} must be refused`);
  }
  for (const host of ALLOWED_HOSTS) {
    assert(isPublicHttpsUrl(new URL(`https://${host}/s.jsonl`)), `${host} must pass`);
  }
});
