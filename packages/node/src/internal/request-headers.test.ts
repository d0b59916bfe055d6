import { describe, expect, it } from "vitest";
import { RequestHeaders } from "./request-headers.js";

const raw = [
  "Host",
  "127.0.0.1",
  "Accept",
  "application/json",
  "X-Many",
  "a",
  "x-many",
  "b",
  "Set-Cookie",
  "s=1",
  "set-cookie",
  "t=2",
  "Content-Type",
  "application/json",
];

/** The Headers the adapter built before: each raw pair appended. */
function appended(pairs: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < pairs.length; i += 2) headers.append(pairs[i]!, pairs[i + 1]!);
  return headers;
}

describe("RequestHeaders", () => {
  it("answers get and has as a Headers filled from the raw pairs, repeated names joined", () => {
    const lazy = new RequestHeaders(raw);
    const full = appended(raw);
    for (const name of ["host", "ACCEPT", "x-many", "set-cookie", "content-type", "authorization"]) {
      expect(lazy.get(name)).toBe(full.get(name));
      expect(lazy.has(name)).toBe(full.has(name));
    }
    expect(lazy.get("X-Many")).toBe("a, b");
  });

  it("iterates, lists Set-Cookie and is a Headers like the filled one", () => {
    const lazy = new RequestHeaders(raw);
    expect(lazy).toBeInstanceOf(Headers);
    expect([...lazy]).toEqual([...appended(raw)]);
    expect(new RequestHeaders(raw).getSetCookie()).toEqual(["s=1", "t=2"]);
    const seen: string[] = [];
    new RequestHeaders(raw).forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual([...appended(raw)].map(([name, value]) => `${name}=${value}`));
    expect(new Headers(new RequestHeaders(raw)).get("x-many")).toBe("a, b");
  });

  it("changes like a Headers: set, append and delete, before or after a read", () => {
    const lazy = new RequestHeaders(raw);
    lazy.delete("authorization");
    expect(lazy.get("accept")).toBe("application/json");
    lazy.delete("Accept");
    lazy.set("content-length", "3");
    lazy.append("x-many", "c");
    expect(lazy.has("accept")).toBe(false);
    expect(lazy.get("content-length")).toBe("3");
    expect(lazy.get("x-many")).toBe("a, b, c");
    expect([...lazy.keys()]).toEqual(["content-length", "content-type", "host", "set-cookie", "set-cookie", "x-many"]);
  });

  it("deletes every pair of a name, of any case, and answers the rest as a Headers would", () => {
    const lazy = new RequestHeaders([...raw, "Authorization", "Bearer x", "AUTHORIZATION", "Bearer y"]);
    const full = appended([...raw, "Authorization", "Bearer x", "AUTHORIZATION", "Bearer y"]);
    for (const headers of [lazy, full]) {
      headers.delete("authorization");
      headers.delete("x-many");
      headers.delete("not-there");
    }
    for (const name of ["authorization", "x-many", "host", "accept", "set-cookie"])
      expect([name, lazy.get(name), lazy.has(name)]).toEqual([name, full.get(name), full.has(name)]);
    const seen: string[] = [];
    lazy.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen).toEqual([...full].map(([name, value]) => `${name}=${value}`));
    expect([...lazy]).toEqual([...full]);
  });
});

describe("RequestHeaders.forEach", () => {
  /** What `forEach` visits, as `name=value` lines. */
  function visited(headers: Headers): string[] {
    const seen: string[] = [];
    headers.forEach((value, name, parent) => {
      expect(parent).toBe(headers);
      seen.push(`${name}=${value}`);
    });
    return seen;
  }

  it("visits what a filled Headers visits, without copying the raw pairs into it", () => {
    const lists = [
      raw,
      [],
      ["B", "1", "a", "2", "b", "3", "A", "4"],
      ["Set-Cookie", "z=1", "Accept", "*/*", "set-cookie", "a=2", "SET-COOKIE", "m=3"],
      ["x-Empty", "", "X-EMPTY", "", "x-latin", "caf\u00e9"],
      ["Impersonate-Extra-Scopes", "view", "Impersonate-User", "jane", "Impersonate-Extra-Scopes", "edit"],
    ];
    for (const list of lists) {
      const lazy = new RequestHeaders(list);
      expect(visited(lazy)).toEqual(visited(appended(list)));
      // A change after the visit still finds every raw pair.
      lazy.set("x-after", "1");
      expect([...lazy]).toEqual([...appended([...list, "x-after", "1"])]);
    }
  });

  it("passes thisArg to the callback", () => {
    const self = { seen: 0 };
    new RequestHeaders(raw).forEach(function (this: typeof self) {
      this.seen++;
    }, self);
    expect(self.seen).toBe([...appended(raw)].length);
  });

  it("visits pairs a Headers would change or refuse as the filled Headers does", () => {
    const odd = ["x-a", " padded ", "x-b", "line\nbreak", "bad name", "v", "x-c", "wide\u0101", "x-d", "ok"];
    expect(visited(new RequestHeaders(odd))).toEqual(["x-a=padded", "x-d=ok"]);
  });

  it("follows a change made by the callback as a Headers does", () => {
    const list = ["b", "1", "a", "2", "c", "3"];
    const visit = (headers: Headers) => {
      const seen: string[] = [];
      headers.forEach((_value, name) => {
        seen.push(name);
        if (name === "a") {
          headers.delete("b");
          headers.append("d", "4");
        }
      });
      return seen;
    };
    expect(visit(new RequestHeaders(list))).toEqual(visit(appended(list)));
    expect(visit(new RequestHeaders(list))).toEqual(["a", "c", "d"]);
  });
});
