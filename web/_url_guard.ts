/**
 * The edge handler's default `?url=` policy: which hosts a caller may make it fetch
 * (server-side request forgery guard for IP literals; host names are not resolved).
 *
 * @module
 */

function isPrivateIPv4(host: string): boolean {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!match) return false;
  const [a, b, c] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return a === 0 || a === 10 || a === 127 || a >= 224 || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19)) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113);
}

/** The eight 16-bit groups of an IPv6 literal (`::` and a dotted IPv4 tail expanded). */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${
      ((c << 8) | d).toString(16)
    }`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => part === "" ? [] : part.split(":").map((g) => parseInt(g, 16));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 1) return undefined;
  const groups = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * Whether an IPv6 literal is anything but a global unicast address. Allowed is only
 * 2000::/3 (global unicast) minus its special blocks: 2001::/23 (IETF: Teredo, ORCHID,
 * benchmarking), 2001:db8::/32 and 3fff::/20 (documentation) and 2002::/16 (6to4, which
 * embeds an IPv4 address). Everything else is refused: ::/8 (unspecified, loopback,
 * IPv4-compatible `::a.b.c.d`, IPv4-mapped `::ffff:a.b.c.d`, SIIT), 64:ff9b::/96 and
 * 64:ff9b:1::/48 (NAT64, which reaches IPv4 targets such as 127.0.0.1), 100::/64, fc00::/7
 * (unique local), fe80::/10 (link local), fec0::/10 (site local), ff00::/8 (multicast).
 */
function isNonGlobalIPv6(host: string): boolean {
  if (!host.startsWith("[")) return false;
  const groups = ipv6Groups(host.slice(1, -1).toLowerCase());
  if (!groups) return true; // unparsable: refuse
  const [g0, g1] = groups;
  if ((g0 & 0xe000) !== 0x2000) return true; // outside 2000::/3
  if (g0 === 0x2001 && g1 < 0x0200) return true; // 2001::/23
  if (g0 === 0x2001 && g1 === 0x0db8) return true;
  if (g0 === 0x2002) return true;
  if (g0 === 0x3fff && g1 < 0x1000) return true; // 3fff::/20
  return false;
}

/**
 * The default `?url=` policy: `https:`, default port, no credentials, and a host that is
 * not `localhost` (or `*.localhost`) or a loopback, private, link-local, CGNAT, multicast
 * or documentation IPv4 literal; IPv6 literals must be global unicast (no IPv4-mapped or
 * -compatible, NAT64, 6to4, Teredo, site-local, unique-local or link-local forms). Host names are not resolved (web-standard APIs cannot): see the module docs.
 *
 * @example
 * ```ts
 * import { isPublicHttpsUrl } from "@mu/sessions/edge";
 * isPublicHttpsUrl(new URL("https://example.com/s.jsonl")); // true
 * isPublicHttpsUrl(new URL("http://127.0.0.1/s.jsonl")); // false
 * ```
 */
export function isPublicHttpsUrl(url: URL): boolean {
  if (url.protocol !== "https:" || url.username || url.password || url.port) return false;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host || host === "localhost" || host.endsWith(".localhost")) return false;
  return !isPrivateIPv4(host) && !isNonGlobalIPv6(host);
}
